"""Image descriptions from an OpenAI-compatible vision model (only when one is configured).

The image is scaled down, sent inline as a JPEG data URL in one chat-completions request, and
the reply becomes the picture's description. The client never retries: a failing endpoint is
reported once (the parser turns it into a warning) and ingestion goes on with OCR alone.
"""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING

from polyrag.errors import ProviderRejectedError, ProviderUnavailableError
from polyrag.settings import ProviderSettings, VisionSettings

if TYPE_CHECKING:
    from PIL import Image

_DETAIL_CHARS = 160


class PictureDescriber:
    """Describes images with the vision model of `VisionSettings.provider`."""

    def __init__(self, settings: VisionSettings) -> None:
        if settings.provider is None:
            raise ValueError("PictureDescriber needs parse.vision.provider")
        import openai  # imported here: most runs are offline and never describe pictures

        self._settings = settings
        self._provider: ProviderSettings = settings.provider
        self.name = f"vision:{settings.provider.name}"
        self._client = openai.OpenAI(
            base_url=settings.provider.base_url,
            api_key=settings.provider.resolved_key() or "missing",
            timeout=settings.provider.timeout_s,
            max_retries=0,
        )

    def describe(self, image: Image.Image) -> str:
        """A short description of `image` (its current frame); "" when the model gave none.

        Raises ProviderUnavailableError (endpoint down, timeout, server error) or
        ProviderRejectedError (bad key, model or request).
        """
        import openai

        url = "data:image/jpeg;base64," + base64.b64encode(_jpeg(image, self._settings)).decode()
        try:
            reply = self._client.chat.completions.create(
                model=self._provider.model,
                messages=[
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": self._settings.prompt},
                            {"type": "image_url", "image_url": {"url": url}},
                        ],
                    }
                ],
                max_tokens=self._settings.max_tokens,
                temperature=0.0,
            )
        except openai.APIStatusError as error:
            detail = f"{self.name}: HTTP {error.status_code} {_short(error.message)}"
            if error.status_code >= 500 or error.status_code == 429:
                raise ProviderUnavailableError(detail) from None
            raise ProviderRejectedError(detail) from None
        except openai.OpenAIError as error:
            raise ProviderUnavailableError(f"{self.name}: {_short(str(error))}") from None
        if not reply.choices:
            return ""
        return " ".join((reply.choices[0].message.content or "").split())


def _jpeg(image: Image.Image, settings: VisionSettings) -> bytes:
    from PIL import Image as PILImage

    picture = image.convert("RGBA") if "A" in image.getbands() else image.convert("RGB")
    if picture.mode == "RGBA":
        background = PILImage.new("RGBA", picture.size, (255, 255, 255, 255))
        background.alpha_composite(picture)
        picture = background.convert("RGB")
    picture.thumbnail((settings.max_side, settings.max_side), PILImage.Resampling.LANCZOS)
    buffer = io.BytesIO()
    picture.save(buffer, format="JPEG", quality=85)
    return buffer.getvalue()


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL_CHARS else text[: _DETAIL_CHARS - 3] + "..."
