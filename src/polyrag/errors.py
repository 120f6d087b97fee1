"""The one error tree. Each error carries a user-facing hint and whether retrying may help.

Errors are raised where they happen and caught only at the boundaries (CLI, API, the LLM
fallback chain), which print `str(error)` — one line — and never a traceback.
"""

from __future__ import annotations


class PolyragError(Exception):
    """Base of every error polyrag raises on purpose."""

    hint: str = ""
    retryable: bool = False

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint

    def one_line(self) -> str:
        text = " ".join(str(self).split())
        return f"{text} ({self.hint})" if self.hint else text


class ConfigError(PolyragError):
    hint = "check POLYRAG_* variables and the config.toml in the polyrag home"


class ModelFileError(PolyragError):
    hint = "reinstall the model packages with `make install`"


class MissingDependencyError(PolyragError):
    hint = "install it with `make install`"


class ParseError(PolyragError):
    """A file could not be read into text. The message names the reason, not the file."""


class UnsupportedFormatError(ParseError):
    hint = "see the README's list of formats"


class EncryptedFileError(ParseError):
    hint = "pass --password"


class EmptyFileError(ParseError):
    pass


class CorruptFileError(ParseError):
    pass


class IngestError(PolyragError):
    pass


class FetchError(PolyragError):
    """A URL could not be fetched; the message names the reason (refused, timed out, HTTP 404)."""

    hint = "check the URL; limits and address rules are the web.* settings"


class UploadError(PolyragError):
    """An uploaded file was refused before it was stored (no usable name, sent twice)."""


class UploadTooLargeError(UploadError):
    hint = "the size limit is the server.max_upload_mb setting"


class SourceNotFoundError(PolyragError):
    hint = "see `polyrag sources list`"


class StoreError(PolyragError):
    pass


class LLMError(PolyragError):
    """A language model failed; `retryable` says whether the next provider should be tried."""


class ProviderUnavailableError(LLMError):
    retryable = True
    hint = "check the endpoint's URL and that it is running"


class ProviderRejectedError(LLMError):
    """The provider answered with a client error (bad key, bad request): not worth failing over."""

    hint = "check the provider's API key and model name"


class AllProvidersFailedError(LLMError):
    hint = "check the configured providers; the local model needs `make install`"


class MalformedReplyError(LLMError):
    """The model was asked for JSON of a given shape and replied with something else."""

    hint = "a larger model follows the format more reliably"
