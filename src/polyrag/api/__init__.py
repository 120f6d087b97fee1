"""The REST API (FastAPI): `create_app(settings)`; `polyrag serve` runs it."""

from polyrag.api.app import create_app

__all__ = ["create_app"]
