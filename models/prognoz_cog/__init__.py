"""Tools prognoz runs on its Cog predictors (models/<name>/ with cog.yaml and predict.py).

`python -m prognoz_cog.describe <folder>` prints a predictor's input, enum and output schemas, derived
the way Cog derives them for its OpenAPI document.
"""
