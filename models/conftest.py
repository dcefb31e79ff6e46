"""The predictor tests' shared fixtures (a receiver of coglet's webhooks) for every test here."""

pytest_plugins = ["prognoz_cog.testing"]
