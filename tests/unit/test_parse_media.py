"""Audio and video decoding, speech detection and passages: real files, no Whisper model.

Silence, music, damaged files and videos without sound are refused before the model would be
loaded, so these tests are quick; tests/integration/test_media.py transcribes with the model.
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from polyrag.errors import CorruptFileError, EmptyFileError, MissingDependencyError
from polyrag.parse.media import SAMPLE_RATE, MediaParser, Segment, decode_audio, passages
from polyrag.parse.router import ParserRouter, default_parsers
from polyrag.types import Locator

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
AUDIO = CORPUS / "audio"
JFK = AUDIO / "whisper__jfk.flac"

pytestmark = pytest.mark.skipif(not JFK.is_file(), reason="the shared eval corpus is absent")


def make_clip(
    path: Path,
    *,
    audio_from: Path | None,
    video: str | None = "mpeg4",
    audio_codec: str = "aac",
    seconds: float = 2.0,
) -> Path:
    """Write a small media file at `path`: `video` frames (a codec name, or None for none) and
    the audio of `audio_from` re-encoded with `audio_codec` (or no audio track)."""
    with av.open(str(path), mode="w") as out:
        video_stream = None
        if video is not None:
            video_stream = out.add_stream(video, rate=5)
            video_stream.width, video_stream.height = 64, 48
            video_stream.pix_fmt = "yuv420p"
        audio_stream = None
        if audio_from is not None:
            rate = 48_000 if "opus" in audio_codec else 16_000
            audio_stream = out.add_stream(audio_codec, rate=rate)
            audio_stream.layout = "mono"
            sample_format = audio_stream.codec_context.codec.audio_formats[0].name
            resampler = av.AudioResampler(format=sample_format, layout="mono", rate=rate)
            with av.open(str(audio_from)) as source:
                for frame in source.decode(audio=0):
                    frame.pts = None
                    for converted in resampler.resample(frame):
                        out.mux(audio_stream.encode(converted))
                for converted in resampler.resample(None):
                    out.mux(audio_stream.encode(converted))
            out.mux(audio_stream.encode(None))
            seconds = max(seconds, _seconds(audio_from))
        if video_stream is not None:
            for index in range(int(seconds * 5)):
                pixels = np.full((48, 64, 3), (index * 7) % 255, dtype=np.uint8)
                frame = av.VideoFrame.from_ndarray(pixels, format="rgb24")
                frame.pts = index
                frame.time_base = Fraction(1, 5)
                out.mux(video_stream.encode(frame))
            out.mux(video_stream.encode(None))
    return path


def _seconds(path: Path) -> float:
    return len(decode_audio(path.read_bytes(), max_seconds=3600).samples) / SAMPLE_RATE


def test_flac_decodes_to_16khz_mono() -> None:
    recording = decode_audio(JFK.read_bytes(), max_seconds=3600)
    assert recording.samples.dtype == np.float32
    assert recording.samples.ndim == 1
    assert 10.9 < recording.seconds < 11.1
    assert 0.05 < float(np.abs(recording.samples).max()) <= 1.0
    assert not recording.is_video
    assert recording.warnings == ()


def test_long_recordings_are_cut_at_max_minutes_with_a_warning() -> None:
    recording = decode_audio(JFK.read_bytes(), max_seconds=4.0)
    assert recording.seconds == pytest.approx(4.0)
    assert "only the first 0:04 transcribed" in recording.warnings[0]


def test_truncated_recording_keeps_the_part_that_decodes() -> None:
    data = JFK.read_bytes()
    recording = decode_audio(data[: len(data) // 2], max_seconds=3600)
    assert 3.0 < recording.seconds < 8.0


@pytest.mark.parametrize("name", ["docling__silent_1s.wav", "unstructured__CantinaBand3.wav"])
def test_silence_and_music_have_no_speech(name: str) -> None:
    started = time.perf_counter()
    with pytest.raises(EmptyFileError, match="no speech found"):
        MediaParser().parse((AUDIO / name).read_bytes(), name=name)
    assert time.perf_counter() - started < 5.0  # refused by VAD; Whisper is never loaded


def test_truncated_mp3_fails_with_one_clear_line() -> None:
    path = CORPUS / "malformed" / "tika__testMP3truncated.mp3"
    started = time.perf_counter()
    with pytest.raises(CorruptFileError) as caught:
        ParserRouter(default_parsers()).parse(path.read_bytes(), path.name)
    message = caught.value.one_line()
    assert "\n" not in message and "damaged or truncated" in message
    assert time.perf_counter() - started < 5.0


def test_not_media_at_all_is_corrupt() -> None:
    with pytest.raises(CorruptFileError, match="cannot be read as audio or video"):
        MediaParser().parse(b"RIFF\x10\x00\x00\x00WAVEjunkjunkjunk", name="x.wav")


def test_video_without_audio_track_says_so(tmp_path: Path) -> None:
    clip = make_clip(tmp_path / "silent.mp4", audio_from=None)
    with pytest.raises(EmptyFileError, match="no audio track"):
        MediaParser().parse(clip.read_bytes(), name=clip.name)


def test_video_audio_track_is_decoded(tmp_path: Path) -> None:
    clip = make_clip(tmp_path / "jfk.webm", audio_from=JFK, video="libvpx", audio_codec="libopus")
    recording = decode_audio(clip.read_bytes(), max_seconds=3600)
    assert recording.is_video
    assert 10.5 < recording.seconds < 11.5


@pytest.mark.parametrize(
    ("name", "video", "audio_codec", "kind"),
    [
        ("jfk.m4a", None, "aac", "audio"),
        ("jfk.ogg", None, "libopus", "audio"),
        ("jfk.mp3", None, "libmp3lame", "audio"),
        ("jfk.mkv", "mpeg4", "aac", "video"),
        ("jfk.mov", "mpeg4", "aac", "video"),
    ],
)
def test_containers_are_sniffed_and_decoded(
    tmp_path: Path, name: str, video: str | None, audio_codec: str, kind: str
) -> None:
    clip = make_clip(tmp_path / name, audio_from=JFK, video=video, audio_codec=audio_codec)
    data = clip.read_bytes()
    assert ParserRouter(default_parsers()).sniff(data, "upload") == kind
    recording = decode_audio(data, max_seconds=3600)
    assert recording.is_video == (kind == "video")
    assert 10.5 < recording.seconds < 11.5


def test_router_sends_audio_and_video_to_the_media_parser() -> None:
    router = ParserRouter(default_parsers())
    assert {"audio", "video"} <= router.media_types
    assert router.sniff(JFK.read_bytes(), JFK.name) == "audio"


def test_passages_follow_pauses_and_length() -> None:
    segments = [
        Segment(0.0, 8.0, "one"),
        Segment(8.5, 16.0, "two"),
        Segment(16.2, 24.0, "three"),  # 24 s in: a third of 60 s is 20 s
        Segment(27.0, 35.0, "four"),  # after a 3 s pause: a new passage
        Segment(35.1, 60.0, "five"),
        Segment(60.1, 90.0, "six"),  # would make 27-90 longer than 60 s
    ]
    assert list(passages(segments, 60.0, 2.0)) == [
        (0.0, 24.0, "one two three"),
        (27.0, 60.0, "four five"),
        (60.1, 90.0, "six"),
    ]
    # a short passage is not cut at a pause
    short = [Segment(0.0, 3.0, "a"), Segment(6.0, 9.0, "b")]
    assert list(passages(short, 60.0, 2.0)) == [(0.0, 9.0, "a b")]
    assert list(passages([], 60.0, 2.0)) == []
    # a segment longer than the limit is a passage of its own, never cut inside
    long = [Segment(0.0, 15.2, "long"), Segment(15.2, 26.0, "next")]
    assert list(passages(long, 15.0, 2.0)) == [(0.0, 15.2, "long"), (15.2, 26.0, "next")]


def test_time_spans_are_described_as_clock_times() -> None:
    assert Locator(time_span=(65.2, 112.9)).describe() == "1:05-1:52"


def test_missing_faster_whisper_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "faster_whisper", None)
    monkeypatch.setitem(sys.modules, "faster_whisper.vad", None)
    with pytest.raises(MissingDependencyError, match="faster-whisper") as caught:
        MediaParser().parse(JFK.read_bytes(), name=JFK.name)
    assert "pip install faster-whisper" in caught.value.hint


def test_missing_pyav_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "av", None)
    with pytest.raises(MissingDependencyError, match="PyAV"):
        MediaParser().parse(JFK.read_bytes(), name=JFK.name)


def test_timestamps_past_the_end_are_kept_inside_the_recording() -> None:
    """Whisper's last timestamp can overshoot the recording (27.16 s on a 26 s file); a citation
    must point inside it. The model here replays such an overshoot, so no model is loaded."""

    class Overshooting:
        supported_languages = ("en",)

        def transcribe(self, samples: np.ndarray, **_options: object) -> tuple[list, None]:
            seconds = len(samples) / SAMPLE_RATE
            said = [
                Segment(0.0, seconds - 3.0, " And so, my fellow Americans"),
                Segment(seconds + 0.5, seconds + 1.2, " ask not"),  # wholly past the end
                Segment(seconds - 2.0, seconds + 1.16, " what your country can do for you"),
            ]
            return said, None

    parser = MediaParser()
    parser._model = Overshooting()
    document = parser.parse(JFK.read_bytes(), name=JFK.name)
    seconds = decode_audio(JFK.read_bytes(), max_seconds=60).seconds
    spans = [block.locator.time_span for block in document.blocks]
    assert spans and all(span is not None for span in spans)
    assert all(0.0 <= start <= end <= round(seconds, 2) for start, end in filter(None, spans))
    assert "ask not what your country" in " ".join(block.text for block in document.blocks)
