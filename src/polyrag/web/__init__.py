"""The web app: static files (plain HTML, CSS and JavaScript modules, no build step) that the
API's server serves at `/`. `STATIC` is their folder."""

from pathlib import Path

STATIC = Path(__file__).parent / "static"
