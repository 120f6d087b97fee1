"""Speech-to-text with the real packaged Whisper base model on real recordings and videos.

The model loads once for the module (the parser is long-lived, as in an ingest worker).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import wave
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from polyrag.errors import ModelFileError
from polyrag.models.folder import folder_path
from polyrag.models.registry import WHISPER_BASE
from polyrag.parse.media import SAMPLE_RATE, MediaParser, decode_audio, passages
from polyrag.parse.router import ParserRouter, default_parsers
from polyrag.settings import IngestSettings, MediaSettings
from polyrag.types import BlockKind
from tests.unit.test_parse_media import make_clip

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
AUDIO = CORPUS / "audio"
JFK = AUDIO / "whisper__jfk.flac"
JFK_LINE = "ask not what your country can do for you"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not JFK.is_file(), reason="the shared eval corpus is absent"),
]


def model_cache() -> Path:
    return Path(os.environ["POLYRAG_MODELS_DIR"])  # set by tests/conftest.py


def words(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9']+", " ", text.lower()).split())


@pytest.fixture(scope="module")
def parser() -> MediaParser:
    try:
        folder_path(WHISPER_BASE, model_cache())
    except ModelFileError as error:
        pytest.fail(f"the packaged Whisper model is missing: {error.one_line()}")
    return MediaParser(MediaSettings(), model_cache())


def test_jfk_is_transcribed_with_time_spans(parser: MediaParser) -> None:
    parser.parse((AUDIO / "docling__sample_10s.mp3").read_bytes(), name="warm-up.mp3")
    started = time.perf_counter()
    document = parser.parse(JFK.read_bytes(), name=JFK.name)
    elapsed = time.perf_counter() - started
    text = " ".join(block.text for block in document.blocks)
    assert JFK_LINE in words(text)
    assert document.media_type == "audio"
    assert document.pages == 1  # whole minutes, rounded up
    for block in document.blocks:
        assert block.kind == BlockKind.TEXT
        assert block.locator.time_span is not None
        start, end = block.locator.time_span
        assert 0.0 <= start < end <= 11.5
    assert document.blocks[0].locator.describe().startswith("0:0")
    print(f"\njfk.flac (11.0 s): {elapsed:.2f} s, real-time factor {elapsed / 11.0:.2f}")
    assert elapsed < 11.0 * 3  # well under real time on an idle machine; slack for shared CPUs


@pytest.mark.parametrize("name", ["docling__sample_10s.mp3", "docling__sample_10s_audio-wav.wav"])
def test_mp3_and_wav_samples(parser: MediaParser, name: str) -> None:
    document = parser.parse((AUDIO / name).read_bytes(), name=name)
    said = words(" ".join(block.text for block in document.blocks))
    assert "shakespeare" in said
    assert "public domain" in said


@pytest.mark.parametrize(
    ("name", "video", "audio_codec"),
    [("jfk.mp4", "mpeg4", "aac"), ("jfk.webm", "libvpx", "libopus")],
)
def test_video_soundtrack_is_transcribed(
    parser: MediaParser, tmp_path: Path, name: str, video: str, audio_codec: str
) -> None:
    clip = make_clip(tmp_path / name, audio_from=JFK, video=video, audio_codec=audio_codec)
    document = parser.parse(clip.read_bytes(), name=clip.name)
    assert document.media_type == "video"
    assert JFK_LINE in words(" ".join(block.text for block in document.blocks))
    assert all(block.locator.time_span for block in document.blocks)


def test_router_sniffs_and_transcribes_a_video(parser: MediaParser, tmp_path: Path) -> None:
    clip = make_clip(tmp_path / "talk.mov", audio_from=JFK, video="mpeg4", audio_codec="aac")
    assert any(isinstance(p, MediaParser) for p in default_parsers(model_cache=model_cache()))
    router = ParserRouter([parser])  # the loaded one: default_parsers' own would load again
    assert router.sniff(clip.read_bytes(), clip.name) == "video"
    document = router.parse(clip.read_bytes(), clip.name)
    assert JFK_LINE in words(" ".join(block.text for block in document.blocks))


def test_language_setting_is_used(parser: MediaParser) -> None:
    english = MediaParser(MediaSettings(language="en", beam_size=1), model_cache())
    english._model = parser._loaded_model()  # share the loaded model; only settings differ
    document = english.parse(JFK.read_bytes(), name=JFK.name)
    assert JFK_LINE in words(" ".join(block.text for block in document.blocks))


def twice_with_a_pause(path: Path, times: int = 2) -> Path:
    """A 16 kHz mono WAV: jfk.flac `times` times with four seconds of silence between (26 s)."""
    samples = decode_audio(JFK.read_bytes(), max_seconds=60).samples
    pause = np.zeros(4 * SAMPLE_RATE, dtype=np.float32)
    pieces = [samples]
    for _ in range(times - 1):
        pieces += [pause, samples]
    pcm = (np.concatenate(pieces) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(SAMPLE_RATE)
        out.writeframes(pcm.tobytes())
    return path


def test_passages_group_real_segments_at_pauses_and_length(
    parser: MediaParser, tmp_path: Path
) -> None:
    """The passages of a real transcript: two sayings with a 4 s pause between, 15 s passages.

    Whisper's segments of this recording vary from run to run (its temperature fallback
    samples): the first saying may end at 11 s or run on into the silence, the second may be
    split anywhere, once both came as one 26 s segment. So the rules are checked against the
    segments Whisper gave this time; tests/unit/test_parse_media.py checks them on fixed ones.
    """
    path = twice_with_a_pause(tmp_path / "twice.wav")
    short = MediaParser(MediaSettings(passage_seconds=15), model_cache())
    short._model = parser._loaded_model()  # share the loaded model; only settings differ
    recording = decode_audio(path.read_bytes(), max_seconds=60)
    segments, _ = short._transcribe(recording)
    limit, pause = short.settings.passage_seconds, short.settings.pause_seconds
    found = list(passages(segments, limit, pause))
    shown = [(round(s.start, 2), round(s.end, 2), s.text) for s in segments]
    assert found and " ".join(text for _, _, text in found) == " ".join(s.text for s in segments)
    # Both sayings heard: "fellow Americans", which Whisper has also written "America's".
    said = words(" ".join(s.text for s in segments))
    assert len(re.findall(r"\bfellow america(?:ns|'s)\b", said)) == 2, shown
    assert all(0.0 <= s.start <= s.end <= recording.seconds for s in segments), shown
    position = 0
    for start, end, text in found:
        group = [segments[position]]  # the segments this passage joined, found by its text
        while " ".join(g.text for g in group) != text:
            group.append(segments[position + len(group)])
        assert (group[0].start, max(g.end for g in group)) == (start, end), shown
        # never longer than the limit unless one segment is; never across a pause once a
        # third of the limit long
        assert end - start <= limit or len(group) == 1, shown
        reached = group[0].end
        for following in group[1:]:
            paused = following.start - reached >= pause and reached - start >= limit / 3
            assert not paused, shown
            reached = max(reached, following.end)
        position += len(group)
    assert position == len(segments), shown
    # and the parser itself gives passages in order, within the recording
    document = short.parse(path.read_bytes(), name="twice.wav")
    spans = [block.locator.time_span for block in document.blocks]
    assert all(span is not None for span in spans), spans
    known = [span for span in spans if span is not None]
    assert all(a[1] <= b[0] for a, b in pairwise(known)), spans
    assert known[-1][1] <= round(recording.seconds, 2), spans  # Whisper once said 27.16 of 26


def test_time_limit_keeps_what_was_transcribed(parser: MediaParser, tmp_path: Path) -> None:
    # Three times (41 s): more than Whisper's 30 s window, so the first segments cannot reach
    # the end whatever their boundaries.
    data = twice_with_a_pause(tmp_path / "thrice.wav", times=3).read_bytes()
    hurried = MediaParser(MediaSettings(timeout_s=0.01), model_cache())
    hurried._model = parser._loaded_model()
    document = hurried.parse(data, name="twice.wav")
    assert len(document.blocks) == 1
    assert "transcription stopped at 0:" in document.warnings[0]
    assert "parse.media.timeout_s" in document.warnings[0]


def test_model_folder_is_verified_and_repaired(tmp_path: Path) -> None:
    folder = folder_path(WHISPER_BASE, tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == [
        "config.json", "model.bin", "tokenizer.json", "vocabulary.txt"
    ]  # fmt: skip
    (folder / "tokenizer.json").write_text("{}")  # a damaged copy is replaced
    assert folder_path(WHISPER_BASE, tmp_path) == folder
    assert (folder / "tokenizer.json").stat().st_size == 2_203_239


_CHILD = """
import json, resource, sys, time
from pathlib import Path
limit = int(sys.argv[3]) * 2**20
resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
from polyrag.parse.media import SAMPLE_RATE, MediaParser, decode_audio
started = time.perf_counter()
parser = MediaParser(model_cache=Path(sys.argv[2]))
document = parser.parse(Path(sys.argv[1]).read_bytes(), name="x")
seconds = time.perf_counter() - started
status = dict(l.split(":", 1) for l in Path("/proc/self/status").read_text().splitlines())
print(json.dumps({"text": " ".join(b.text for b in document.blocks), "seconds": seconds,
                  "peak_rss_mb": int(status["VmHWM"].split()[0]) / 1024}))
"""


def test_transcribes_within_the_parse_workers_memory_limit() -> None:
    """A parse worker runs under RLIMIT_AS (ingest.parse_memory_mb): loading and running
    Whisper must fit in it. Prints the peak resident memory of a fresh process."""
    limit_mb = IngestSettings().parse_memory_mb
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, str(JFK), str(model_cache()), str(limit_mb)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert JFK_LINE in words(report["text"])
    print(
        f"\njfk.flac in a fresh process: {report['seconds']:.1f} s with model load, "
        f"peak RSS {report['peak_rss_mb']:.0f} MB (RLIMIT_AS {limit_mb} MB)"
    )
    assert report["peak_rss_mb"] < 1500
