"""One typed settings tree.

Sources, strongest first: constructor arguments, environment variables `POLYRAG_*` (nested with
`__`, e.g. `POLYRAG_RETRIEVE__RRF_K=30`), the TOML file `config.toml` in the polyrag home (or the
file named by `POLYRAG_CONFIG`), then the named preset's defaults.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from polyrag.errors import ConfigError


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ChunkSettings(_Section):
    max_tokens: int = Field(160, ge=32, le=256, description="Embedder tokens per chunk (≤256).")
    overlap_tokens: int = Field(16, ge=0, le=128, description="Tokens shared by neighbours.")
    table_max_tokens: int = Field(
        256, ge=64, le=256, description="Tokens per table chunk; longer tables are split by rows."
    )
    page_max_tokens: int = Field(
        1024,
        ge=64,
        description="A slide (or slide-like page) up to this many tokens is one chunk: the vector "
        "reads its first 256, keyword search and the answer all of it; a longer one is split "
        "like running text.",
    )


class EmbedSettings(_Section):
    batch_size: int = Field(
        8, ge=1, le=512, description="Passages per ONNX run (8 was fastest and leanest on 2 cores)."
    )
    threads: int = Field(0, ge=0, description="ONNX intra-op threads; 0 = all cores.")


class RetrieveSettings(_Section):
    k: int = Field(6, ge=1, le=100, description="Hits returned by search and given to the LLM.")
    candidates: int = Field(
        50,
        ge=1,
        le=1000,
        description="Hits each retriever contributes (page support needs a page's other hits).",
    )
    fusion: Literal["convex", "rrf"] = Field(
        "convex",
        description="How BM25 and vector hits are fused: a weighted sum of scores scaled by the "
        "best of each (convex), or weighted reciprocal rank fusion (rrf).",
    )
    keyword_weight: float = Field(
        0.3, ge=0, description="Weight of BM25 in fusion (0.3/0.7 tuned on SciFact train)."
    )
    vector_weight: float = Field(0.7, ge=0, description="Weight of vector similarity in fusion.")
    rrf_k: float = Field(60.0, gt=0, description="Reciprocal rank fusion constant (fusion=rrf).")
    keyword_words: int = Field(
        8,
        ge=0,
        description="A question with more content words than this weighs BM25 less, in "
        "proportion (keyword_weight × this / its words): an OR of many words ranks passages "
        "that share incidental ones. 0 keeps keyword_weight for every question.",
    )
    keyword_variant: bool = Field(
        True,
        description="Also search by vector with the question's content words alone (its "
        "function and framing words dropped), each chunk at its better similarity.",
    )
    keyword_variant_share: float = Field(
        0.34,
        ge=0,
        le=1,
        description="Search with the keyword form only when it drops at least this share of "
        "the question's words: with fewer dropped, its vector is nearly the question's and finds "
        "the same chunks, and the second search would only cost time.",
    )
    page_support: float = Field(
        0.15,
        ge=0,
        lt=1,
        description="Each candidate gains this share of the two best other candidates' scores "
        "on its page, slide, sheet or section, so pages that match as a whole rank first "
        "(0 turns it off).",
    )
    page_match: float = Field(
        1.0,
        ge=0,
        description="When the question names pages ('on page 14', 'the second page'), those "
        "pages are searched too and their chunks gain this much: by default a named page's best "
        "chunk comes first (0 turns it off).",
    )
    name_match: float = Field(
        0.3,
        ge=0,
        description="Each candidate gains this much times the share of its file name's parts "
        "the question contains (BESTBUY_2019_10K.pdf for 'Best Buy … FY2019'), so a file the "
        "question names ranks first in a library; the one or two files it names best (half "
        "their name's parts or more) are searched on their own too (0 turns both off).",
    )
    statement_match: float = Field(
        0.3,
        ge=0,
        description="When a question names a financial statement or a figure one reports "
        "('the balance sheet', 'inventory turnover'), candidates on the pages titled as that "
        "statement gain this much (0 turns it off).",
    )
    entity_match: float = Field(
        0.3,
        ge=0,
        description="When a question names things by capitalised names ('Microsoft "
        "Corporation', 'San Diego') that some candidates write and most do not, the candidates "
        "writing every such name gain this much: a row of a listing beats a summary table "
        "that matches the question's other words (0 turns it off).",
    )


class AnswerSettings(_Section):
    context_tokens: int = Field(
        320, ge=100, description="LLM tokens of evidence in the prompt (prompt length is latency)."
    )
    evidence_items: int = Field(3, ge=1, le=20, description="Hits shown to the LLM at most.")
    min_relative_score: float = Field(
        0.7,
        ge=0,
        le=1,
        description="Hits scoring below this share of the best hit's fused score are not shown "
        "to the LLM (0 shows all).",
    )
    max_answer_tokens: int = Field(200, ge=16, description="Longest answer generated.")
    temperature: float = Field(0.0, ge=0, le=2)
    min_similarity: float = Field(
        0.22,
        ge=-1,
        le=1,
        description="Refuse without calling the LLM when the best hit's cosine similarity to the "
        "question is below this. Calibrated with `python -m bench.calibrate_refusal`: 99% of "
        "answerable SQuAD 2.0 questions score above it against their own paragraph.",
    )
    unanswered_at: float = Field(
        0.38,
        ge=0,
        le=1,
        description="Refuse a looked-up answer when the model, asked whether the sentence it "
        "rests on (or its cited passages) answer the question exactly as asked, gives 'no' at "
        "least this share of probability (0 turns the check off). Calibrated with `python -m "
        "bench.calibrate_unanswered` on SQuAD 2.0 questions outside the benchmark's sample: on "
        "cases 60-300, 0.64 of the unanswerable refused, 0.12 of the answerable.",
    )
    history_turns: int = Field(10, ge=0, description="Chat turns used to rewrite follow-ups.")
    prompt_turns: int = Field(
        2, ge=0, description="Recent chat turns shown to the model with the sources."
    )


AskMode = Literal["fast", "agent", "auto", "fixed"]
ASK_MODES: tuple[str, ...] = get_args(AskMode)


class AgentSettings(_Section):
    """How questions are answered: one retrieval (fast), the agent graph, or chosen per question."""

    mode: AskMode = Field(
        "auto",
        description="fast: one retrieval and one answer; agent: plan, retrieve in rounds, use "
        "tools, check; auto: the agent only for questions that need it (computation, tables, "
        "comparisons, several hops); fixed: the agent's steps and code's tools in their set "
        "order with no model decision, the model writing only the reply (a baseline).",
    )
    max_rounds: int = Field(3, ge=1, le=10, description="Retrieval rounds per question at most.")
    max_model_calls: int = Field(
        6, ge=2, le=30, description="Chat model calls per question at most (decisions and reply)."
    )
    tool_retries: int = Field(
        2, ge=0, le=5, description="Retries of a failing tool call, with its error fed back."
    )
    recursion_limit: int = Field(
        40, ge=10, le=500, description="Graph steps per question at most (LangGraph's limit)."
    )
    sql_timeout_s: float = Field(5.0, gt=0, le=120, description="Seconds a SQL query may run.")
    max_tables: int = Field(
        3, ge=1, le=20, description="Tables (of the retrieved sources) offered to SQL at once."
    )
    user_tools: list[str] = Field(
        default_factory=list,
        description="Your own tools as 'package.module:function': typed Python functions whose "
        "docstring says what they do; the agent may call them.",
    )
    memory: bool = Field(
        True,
        description="Remember answered questions: the same question again gets its answer back "
        "at once, a similar one the passages that answered it (forgotten as soon as one of "
        "their sources changes or is removed).",
    )
    memory_similarity: float = Field(
        0.95,
        ge=0.5,
        le=1,
        description="Cosine similarity to a question answered before at which its answer is "
        "given again.",
    )
    clarify: bool = Field(
        True,
        description="Ask the user back when a question is ambiguous across sources or hinges "
        "on a term (an acronym, a quoted phrase) the sources never write.",
    )


class ProviderSettings(_Section):
    """An OpenAI-compatible endpoint (Groq, Gemini, Ollama, vLLM, OpenAI, llama.cpp server)."""

    name: str = Field(description="Label recorded on every answer it produces.")
    base_url: str = Field(description="e.g. http://127.0.0.1:11434/v1")
    model: str = Field(description="Model name the endpoint expects.")
    api_key: str = Field("none", description="Key; local servers accept any value.")
    api_key_env: str | None = Field(None, description="Read the key from this variable instead.")
    timeout_s: float = Field(60.0, gt=0, description="Seconds before a request is abandoned.")
    tool_calls: bool = Field(
        True,
        description="Agent decisions as native tool calls held to their JSON schema; an "
        "endpoint that refuses tools gets JSON mode instead (false: JSON mode from the start).",
    )

    def resolved_key(self) -> str:
        if self.api_key_env:
            return os.environ.get(self.api_key_env, "")
        return self.api_key


class LocalLLMSettings(_Section):
    enabled: bool = Field(True, description="Keep the embedded model as the chain's last resort.")
    context_window: int = Field(4096, ge=512, description="llama.cpp context length (tokens).")
    threads: int = Field(0, ge=0, description="CPU threads; 0 = all cores.")


class LLMSettings(_Section):
    providers: list[ProviderSettings] = Field(
        default_factory=list, description="Remote endpoints, tried in order before the local one."
    )
    local: LocalLLMSettings = Field(default_factory=LocalLLMSettings)


class EvalSettings(_Section):
    judge: ProviderSettings | None = Field(
        None,
        description="OpenAI-compatible model that grades answers by atomic facts in `polyrag "
        "eval qa`; without one, that metric is skipped.",
    )


class IngestSettings(_Section):
    max_file_mb: float = Field(512, gt=0, description="Larger files are refused.")
    workers: int = Field(
        1,
        ge=1,
        le=64,
        description="Processes that parse and chunk files while the main process embeds. On 2 "
        "cores 2 workers were no faster than 1 (embedding is the bottleneck) and took ~150 MB "
        "more; more help when parsing dominates (scans to OCR, recordings).",
    )
    parse_timeout_s: float = Field(
        600, gt=0, description="A file whose parsing takes longer fails; its worker is replaced."
    )
    parse_memory_mb: int = Field(
        2048,
        ge=256,
        description="Address space a parse worker may reserve (RLIMIT_AS); a file that needs "
        "more fails and its worker is replaced. Reading the whole evaluation corpus (OCR, "
        "speech, PDFs) reserved at most 1.33 GB.",
    )
    watch_interval_s: float = Field(
        1.0, gt=0, description="How often `ingest --watch` looks for changed files."
    )
    cluster: str | None = Field(
        None,
        description="A Ray cluster's address (host:6379, ray://host:10001, or auto) to read, "
        "parse and embed on; commits stay in this process. Needs Ray (the `cluster` extra).",
    )
    cluster_workers: int = Field(
        0, ge=0, description="Ray actors to use; 0 = one per CPU the cluster offers."
    )


class StoreSettings(_Section):
    """Where the index lives and which engine holds it."""

    engine: Literal["lancedb", "milvus"] = Field(
        "lancedb",
        description="lancedb (embedded; a folder or object storage) or milvus (a Milvus server, "
        "or Milvus Lite in a local .db folder; needs the `milvus` extra).",
    )
    uri: str | None = Field(
        None,
        description="lancedb: a folder, or s3://bucket/prefix on S3-compatible object storage "
        "shared by several servers and ingest workers; default <home>/index. milvus: a server "
        "address (http://host:19530) or a local path ending in .db; default <home>/milvus.db.",
    )
    token_env: str | None = Field(
        None, description="milvus: the environment variable holding the server's token."
    )
    collection: str = Field(
        "chunks", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="milvus: the collection."
    )
    endpoint: str | None = Field(
        None,
        description="An S3-compatible endpoint other than AWS, e.g. http://127.0.0.1:9000. "
        "Credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or `options`).",
    )
    region: str | None = Field(None, description="The bucket's region (AWS_REGION otherwise).")
    options: dict[str, str] = Field(
        default_factory=dict,
        description="Further storage options passed to the engine as they are (LanceDB's names, "
        "e.g. aws_session_token, timeout).",
    )
    staleness_s: float = Field(
        0.0,
        ge=0,
        description="How old a reader's view of other writers' commits may be; 0 checks on "
        "every read (one small request to object storage per search).",
    )

    def storage_options(self) -> dict[str, str]:
        """The engine's storage options: endpoint and region, then `options` over them."""
        out: dict[str, str] = {}
        if self.endpoint:
            out["aws_endpoint"] = self.endpoint
            if self.endpoint.startswith("http://"):
                out["allow_http"] = "true"
        if self.region:
            out["aws_region"] = self.region
        return {**out, **self.options}


class WebSettings(_Section):
    """Fetching web pages given to `polyrag ingest https://...`."""

    timeout_s: float = Field(
        20.0, gt=0, le=600, description="Seconds for a whole fetch: lookup, redirects, body."
    )
    max_bytes: int = Field(
        10 * 2**20, gt=0, description="Larger pages and files (decoded) are refused."
    )
    max_redirects: int = Field(5, ge=0, le=30, description="Redirects followed at most.")
    allow_private: bool = Field(
        False,
        description="Fetch from loopback, private (RFC 1918, fc00::/7), link-local and CGNAT "
        "addresses too: a server on this machine or an intranet. Off, such addresses are "
        "refused (server-side request forgery).",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names or IP networks (e.g. wiki.intranet, 10.1.0.0/16) fetched "
        "whatever their addresses, cloud metadata endpoints included.",
    )
    user_agent: str = Field("polyrag/0.1", description="User-Agent header sent.")


class ServerSettings(_Section):
    """`polyrag serve`: the REST API and the web app."""

    host: str = Field(
        "127.0.0.1",
        description="Address to listen on. A loopback address needs no credentials; the server "
        "refuses any other.",
    )
    port: int = Field(8731, ge=1, le=65535, description="TCP port.")
    max_upload_mb: float = Field(
        512, gt=0, description="An uploaded file larger than this is refused (HTTP 413)."
    )
    mcp_ingest: bool = Field(
        False,
        description="Offer MCP clients the `ingest` tool, which reads files and URLs from the "
        "server's machine.",
    )


class OcrSettings(_Section):
    """Tesseract OCR of images, scanned pages and embedded pictures."""

    enabled: bool = Field(True, description="OCR images and pages without a text layer.")
    languages: str = Field(
        "eng",
        description="Tesseract language packs, joined by '+' (e.g. eng+deu); each needs its "
        "Debian package tesseract-ocr-<lang>.",
    )
    page_dpi: int = Field(
        300, ge=72, le=600, description="Resolution scanned PDF pages are rendered at for OCR."
    )
    min_page_chars: int = Field(
        30,
        ge=0,
        description="Letters and digits a PDF page's text layer needs to be used as it is; a "
        "page with fewer and a picture on it is OCR'd.",
    )
    max_image_side: int = Field(
        5000, ge=500, description="Longer image sides are scaled down to this before OCR."
    )
    pictures: bool = Field(
        True, description="Also OCR big pictures embedded in PDF pages that have a text layer."
    )
    min_picture_px: int = Field(
        150, ge=1, description="Embedded pictures narrower or lower than this are skipped."
    )
    min_picture_area: float = Field(
        0.02, ge=0, le=1, description="Embedded pictures covering less of the page are skipped."
    )
    max_pictures: int = Field(30, ge=0, description="Embedded pictures OCR'd per document at most.")
    timeout_s: float = Field(120.0, gt=0, description="Seconds tesseract may spend on one image.")
    workers: int = Field(
        2,
        ge=1,
        le=16,
        description="Scanned pages OCR'd at once, each by its own single-threaded tesseract "
        "process (one per core).",
    )


class VisionSettings(_Section):
    """An OpenAI-compatible vision model that describes images; offline it is not used."""

    provider: ProviderSettings | None = Field(
        None, description="Endpoint and model that describe pictures; none = OCR only."
    )
    prompt: str = Field(
        "Describe this image in two or three sentences for a search index: what it shows, "
        "and any text, numbers or chart values that matter.",
        description="What the vision model is asked about each image.",
    )
    max_side: int = Field(
        1024, ge=64, description="Images are scaled down to this many pixels a side before sending."
    )
    max_tokens: int = Field(200, ge=16, description="Longest description requested.")


class MediaSettings(_Section):
    """Speech-to-text of audio and video with faster-whisper."""

    language: str | None = Field(
        None,
        pattern=r"^[a-z]{2,3}$",
        description="Spoken language as a Whisper code (en, de, fr, ...); none = detect it "
        "from the first 30 s of speech.",
    )
    beam_size: int = Field(
        5, ge=1, le=10, description="Whisper's beam width; 1 is greedy decoding (faster)."
    )
    threads: int = Field(0, ge=0, description="CPU threads for Whisper; 0 = every core.")
    passage_seconds: float = Field(
        60.0,
        gt=0,
        description="Longest stretch of speech in one passage (one cited time span); a pause "
        "of pause_seconds ends a passage once it is a third of this long.",
    )
    pause_seconds: float = Field(
        2.0, gt=0, description="Silence between two segments that may start a new passage."
    )
    max_minutes: float = Field(
        180.0,
        gt=0,
        description="Minutes of a recording that are decoded and transcribed; the rest is "
        "skipped with a warning (bounds memory: 16 kHz float samples, ~3.8 MB a minute).",
    )
    timeout_s: float = Field(
        540.0,
        gt=0,
        description="Seconds spent transcribing one recording at most; what was transcribed "
        "by then is kept, with a warning. Keep it below ingest.parse_timeout_s.",
    )


class LimitsSettings(_Section):
    """Bounds that keep hostile or huge files from exhausting time or memory."""

    max_decompressed_mb: float = Field(
        1024, gt=0, description="Most bytes unpacked from one ZIP-based file or archive."
    )
    max_compression_ratio: float = Field(
        200, gt=1, description="Largest unpacked/packed ratio of a ZIP member (zip bombs)."
    )
    max_archive_depth: int = Field(2, ge=0, description="Archives inside archives, at most.")
    max_zip_members: int = Field(
        20_000, gt=0, description="Most members (files and folders) in one ZIP-based file."
    )
    max_image_pixels: int = Field(
        200_000_000, gt=0, description="Larger images are refused (decompression bombs)."
    )


class ParseSettings(_Section):
    """How files are read: OCR, image descriptions, recordings, limits."""

    ocr: OcrSettings = Field(default_factory=OcrSettings)
    vision: VisionSettings = Field(default_factory=VisionSettings)
    media: MediaSettings = Field(default_factory=MediaSettings)
    limits: LimitsSettings = Field(default_factory=LimitsSettings)


Preset = Literal["offline", "quality"]

_PRESETS: dict[str, dict[str, Any]] = {
    "offline": {},
    # A configured cloud model reads more evidence quickly, so give it more.
    "quality": {"retrieve": {"k": 10}, "answer": {"context_tokens": 3000, "evidence_items": 10}},
}


class Settings(BaseSettings):
    """Everything polyrag can be told. See each field's description."""

    model_config = SettingsConfigDict(
        env_prefix="POLYRAG_", env_nested_delimiter="__", extra="forbid", frozen=True
    )

    home: Path = Field(Path(".polyrag"), description="Where the index, manifest and caches live.")
    models_dir: Path | None = Field(
        None, description="Cache of assembled model files; default: <home>/models."
    )
    preset: Preset = Field("offline", description="Named defaults: offline or quality.")
    chunk: ChunkSettings = Field(default_factory=ChunkSettings)
    embed: EmbedSettings = Field(default_factory=EmbedSettings)
    retrieve: RetrieveSettings = Field(default_factory=RetrieveSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    parse: ParseSettings = Field(default_factory=ParseSettings)
    eval: EvalSettings = Field(default_factory=EvalSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)

    @property
    def model_cache(self) -> Path:
        return self.models_dir or self.home / "models"


def load_settings(home: Path | str | None = None, **overrides: Any) -> Settings:
    """Build settings from the environment, the home's config.toml and the preset."""
    home_path = Path(home or os.environ.get("POLYRAG_HOME") or ".polyrag")
    config_file = Path(os.environ.get("POLYRAG_CONFIG") or home_path / "config.toml")
    file_values: dict[str, Any] = {}
    if config_file.is_file():
        try:
            file_values = tomllib.loads(config_file.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise ConfigError(f"cannot read {config_file}: {error}") from None
    try:
        env_only = Settings()
        preset = overrides.get("preset") or file_values.get("preset") or env_only.preset
        merged = _deep_merge(_PRESETS.get(str(preset), {}), file_values)
        # Environment beats the file: re-apply what the environment set explicitly.
        merged = _deep_merge(merged, env_only.model_dump(exclude_unset=True))
        merged = _deep_merge(merged, overrides)
        merged["home"] = home_path
        return Settings.model_validate(merged)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ConfigError(f"invalid setting {where}: {first['msg']}") from None


def _deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out
