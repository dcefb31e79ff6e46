"""The model protocol of prognoz (DESIGN §5), shared by every Python model server."""

from .context import Canceled, ModelError, PredictionContext
from .fetch import FetchError, FetchLimits, FetchResult, fetch_to_file
from .server import Predictor, serve

__all__ = [
    "Canceled",
    "FetchError",
    "FetchLimits",
    "FetchResult",
    "ModelError",
    "PredictionContext",
    "Predictor",
    "fetch_to_file",
    "serve",
]
