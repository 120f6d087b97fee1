"""The embedded model: a GGUF file run in this process by llama.cpp (llama-cpp-python).

One `Llama` instance is loaded on first use and kept. Calls are serialized on it, and
llama-cpp-python keeps the previous evaluation in the KV cache: a new prompt re-evaluates only
the tokens after the prefix it shares with the last one, so a fixed system prompt is paid for
once rather than on every call.

That prefix is always the prompt's first message (the system prompt), evaluated on its own, and
never more: llama.cpp's arithmetic depends on how a prompt is cut into batches, so a prompt
whose reused part varied with whatever was asked before got a different greedy reply to the same
question from one run to the next. Cut at a fixed place, a prompt always gets the same reply.

The agent alternates between prompts with different system messages (a decision, the reply,
the check of the reply), and evaluating a system message costs about a second on 2 cores. So
the KV cells of the last few system messages are kept as llama.cpp sequence states (~30 KB a
token) and copied back when their message returns: the same cells its evaluation would make.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from polyrag.errors import ModelFileError, ProviderRejectedError, ProviderUnavailableError
from polyrag.llm.base import GenerationOptions, Message
from polyrag.models.files import model_path
from polyrag.models.registry import QWEN_CODER_1_5B
from polyrag.settings import LocalLLMSettings

if TYPE_CHECKING:
    from llama_cpp import Llama

_INSTALL_HINT = "install llama-cpp-python with `make install`"


class LocalLlamaModel:
    """A ChatModel over a local GGUF file, using the chat template stored in the file."""

    def __init__(
        self,
        model_path: Path | Callable[[], Path],
        settings: LocalLLMSettings,
        *,
        name: str = "local:qwen2.5-coder-1.5b",
    ) -> None:
        """`model_path` is a verified file, or a function that finds and verifies it on demand."""
        self.name = name
        self._settings = settings
        self._resolve = model_path if callable(model_path) else partial(_existing, model_path)
        self._path: Path | None = None
        self._llama: Llama | None = None
        self._load_lock = threading.RLock()  # also guards finding (and maybe joining) the file
        self._run_lock = threading.Lock()
        self._formatter: Any = None  # renders messages with the model file's chat template
        # The KV cells of recent first messages, by their tokens, the most recent last.
        self._first_messages: OrderedDict[tuple[int, ...], bytes] = OrderedDict()

    @classmethod
    def packaged(cls, cache_dir: Path, settings: LocalLLMSettings) -> LocalLlamaModel:
        """The packaged Qwen2.5-Coder-1.5B, joined into `cache_dir` and checked on first use."""
        return cls(partial(model_path, QWEN_CODER_1_5B, cache_dir), settings)

    def stream(self, messages: Sequence[Message], options: GenerationOptions) -> Iterator[str]:
        request: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": options.max_tokens,
            "temperature": options.temperature,
            "stop": list(options.stop) or None,
            "stream": True,
        }
        if options.json_output:
            # llama-cpp-python turns this into a JSON grammar that constrains sampling.
            request["response_format"] = {"type": "json_object"}
            if options.json_schema is not None:
                request["response_format"]["schema"] = options.json_schema
        with self._run_lock:  # one evaluation at a time; its KV cache is the next one's prefix
            llama = self._loaded()
            try:
                self._keep_first_message(llama, messages)
                chunks = cast(Iterator[dict[str, Any]], llama.create_chat_completion(**request))
                for chunk in chunks:
                    piece = chunk["choices"][0]["delta"].get("content")
                    if piece:
                        yield piece
            except ValueError as error:  # e.g. the prompt does not fit the context window
                raise ProviderRejectedError(
                    f"{self.name}: {_one_line(error)}",
                    hint="shorten the prompt or raise llm.local.context_window",
                ) from error
            except RuntimeError as error:  # llama.cpp failed to decode
                raise ProviderUnavailableError(f"{self.name}: {_one_line(error)}") from error

    def weigh(self, messages: Sequence[Message], choices: Sequence[str]) -> dict[str, float]:
        """Each one-word reply's share of probability as the reply's first token.

        Read from the model's logits for that token (both cases, with and without a leading
        space), not sampled: a caller can then lean towards a choice by a margin it sets, which
        a greedy yes/no cannot do (a small model says "yes" to almost any question it is asked
        about a passage)."""
        seen: list[Any] = []

        def keep(_ids: Any, scores: Any) -> Any:
            seen.append(scores.copy())
            return scores

        request: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": 1,
            "temperature": 0.0,
            "logits_processor": [keep],
        }
        with self._run_lock:
            llama = self._loaded()
            try:
                self._keep_first_message(llama, messages)
                llama.create_chat_completion(**request)
                ids = {choice: _first_tokens(llama, choice) for choice in choices}
            except ValueError as error:
                raise ProviderRejectedError(
                    f"{self.name}: {_one_line(error)}",
                    hint="shorten the prompt or raise llm.local.context_window",
                ) from error
            except RuntimeError as error:
                raise ProviderUnavailableError(f"{self.name}: {_one_line(error)}") from error
        if not seen:
            raise ProviderUnavailableError(f"{self.name}: no logits were produced")
        logits = seen[0]
        top = float(logits.max())
        mass = {c: sum(math.exp(float(logits[i]) - top) for i in ids[c]) for c in choices}
        total = sum(mass.values()) or 1.0
        return {choice: weight / total for choice, weight in mass.items()}

    def healthy(self) -> bool:
        """True when llama-cpp-python is installed and the model file is present and verified."""
        try:
            import llama_cpp  # noqa: F401

            self._model_file()
        except (ImportError, ModelFileError):
            return False
        return True

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        with self._run_lock:
            return len(self._loaded().tokenize(text.encode("utf-8"), add_bos=False))

    def close(self) -> None:
        """Free the model's memory; the next call loads it again."""
        with self._run_lock, self._load_lock:  # the order every caller takes them in
            if self._llama is not None:
                self._llama.close()
                self._llama = None
            self._first_messages.clear()

    def _keep_first_message(self, llama: Llama, messages: Sequence[Message]) -> None:
        """Leave exactly the prompt's first message in the KV cache, evaluated alone.

        The cache is cut back to that message when it holds it (llama.cpp then evaluates the
        rest of the prompt from there), and otherwise emptied and filled with that message
        alone, so every prompt is evaluated in the same batches whatever came before it."""
        tokens = self._prompt_tokens(llama, messages)
        end = _first_message_end(llama, tokens)
        if end is None:  # a template without message markers: evaluate from the start
            llama.reset()
            return
        cached = llama.input_ids[: llama.n_tokens]
        if llama.n_tokens >= end and list(cached[:end]) == tokens[:end]:
            llama.n_tokens = end  # llama-cpp-python drops the rest of the KV cache itself
            return
        key = tuple(tokens[:end])
        llama.reset()
        llama._ctx.kv_cache_seq_rm(-1, 0, -1)  # every cell gone, as before a first evaluation
        saved = self._first_messages.get(key)
        if saved is not None and _restore(llama, saved):
            llama.input_ids[:end] = key
            llama.n_tokens = end
            self._first_messages.move_to_end(key)
            return
        llama.eval(tokens[:end])
        state = _snapshot(llama)
        if state:
            self._first_messages[key] = state
            while len(self._first_messages) > _KEPT_FIRST_MESSAGES:
                self._first_messages.popitem(last=False)

    def _prompt_tokens(self, llama: Llama, messages: Sequence[Message]) -> list[int]:
        """The tokens llama-cpp-python's chat handler makes of `messages` (the model file's own
        chat template, as it renders it)."""
        if "tokenizer.chat_template" not in llama.metadata:
            return []  # no template of its own: nothing is kept between prompts
        if self._formatter is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            def text(token: int) -> str:  # as Llama.__init__ names the end and start tokens
                return str(llama._model.token_get_text(token)) if token != -1 else ""

            self._formatter = Jinja2ChatFormatter(
                template=llama.metadata["tokenizer.chat_template"],
                eos_token=text(llama.token_eos()),
                bos_token=text(llama.token_bos()),
            )
        rendered = self._formatter(
            messages=[{"role": m.role, "content": m.content} for m in messages]
        )
        return llama.tokenize(
            rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True
        )

    def _loaded(self) -> Llama:
        llama = self._llama
        if llama is None:
            with self._load_lock:
                if self._llama is None:
                    self._llama = self._load()
                llama = self._llama
        return llama

    def _load(self) -> Llama:
        try:
            from llama_cpp import Llama
        except ImportError as error:
            raise ProviderUnavailableError(
                f"{self.name}: llama-cpp-python is not installed", hint=_INSTALL_HINT
            ) from error
        try:
            path = self._model_file()
        except ModelFileError as error:
            raise ProviderUnavailableError(f"{self.name}: {error}", hint=error.hint) from error
        threads = self._settings.threads or os.cpu_count() or 1
        try:
            with loading_guard():
                return Llama(
                    model_path=str(path),
                    n_ctx=self._settings.context_window,
                    n_threads=threads,
                    n_threads_batch=threads,
                    flash_attn=True,  # ~15% faster prompt evaluation on CPU, same output
                    verbose=False,
                )
        except (ValueError, RuntimeError) as error:
            raise ProviderUnavailableError(
                f"{self.name}: cannot load {path.name}: {_one_line(error)}",
                hint=ModelFileError.hint,
            ) from error

    def _model_file(self) -> Path:
        with self._load_lock:
            if self._path is None:
                self._path = self._resolve()
            return self._path


def cpu_has_amx(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether the processor reports Intel AMX (Sapphire Rapids and later)."""
    try:
        with cpuinfo.open(encoding="utf-8", errors="replace") as lines:
            flags = next((line for line in lines if line.startswith("flags")), "")
    except OSError:
        return False
    return "amx_int8" in flags.split()


def loading_guard() -> contextlib.AbstractContextManager[None]:
    """What a model is loaded under on this processor: `without_amx` where it reports AMX."""
    return without_amx() if cpu_has_amx() else contextlib.nullcontext()


_PARAMS_LOCK = threading.Lock()


@contextlib.contextmanager
def without_amx() -> Iterator[None]:
    """Load the model without llama.cpp's extra CPU buffer types: built on a processor with
    AMX, its AMX matrix kernels crashed the process (SIGSEGV in ggml_backend_amx_mul_mat, seen
    on a 2-core VM, llama-cpp-python 0.3.36). `Llama` takes the model parameters from
    `llama_model_default_params()` and offers no argument for this one, so that function is
    wrapped while the model loads."""
    import llama_cpp.llama as module

    with _PARAMS_LOCK:
        defaults = module.llama_cpp.llama_model_default_params

        def params() -> Any:
            chosen = defaults()
            chosen.use_extra_bufts = False
            return chosen

        module.llama_cpp.llama_model_default_params = params
        try:
            yield
        finally:
            module.llama_cpp.llama_model_default_params = defaults


_KEPT_FIRST_MESSAGES = 8  # system messages whose KV cells are kept (a few MB each)


def _snapshot(llama: Llama) -> bytes:
    """The KV cells of the context's one sequence, as llama.cpp serializes them."""
    import llama_cpp

    size = llama_cpp.llama_state_seq_get_size(llama._ctx.ctx, 0)
    buffer = (ctypes.c_uint8 * size)()
    written = llama_cpp.llama_state_seq_get_data(llama._ctx.ctx, buffer, size, 0)
    return ctypes.string_at(buffer, written) if 0 < written <= size else b""


def _restore(llama: Llama, state: bytes) -> bool:
    """Put saved KV cells back into an emptied context; False when llama.cpp refuses them."""
    import llama_cpp

    buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
    return bool(llama_cpp.llama_state_seq_set_data(llama._ctx.ctx, buffer, len(state), 0))


def _existing(path: Path) -> Path:
    if not path.is_file():
        raise ModelFileError(f"model file {path} is missing")
    return path


def _first_tokens(llama: Llama, word: str) -> set[int]:
    """The tokens a reply that is `word` can start with: "no", "No", " no", " No"."""
    forms = {word, word.capitalize(), f" {word}", f" {word.capitalize()}"}
    firsts = (llama.tokenize(form.encode("utf-8"), add_bos=False, special=False) for form in forms)
    return {tokens[0] for tokens in firsts if tokens}


def _first_message_end(llama: Llama, tokens: Sequence[int]) -> int | None:
    """Where the first message of a rendered prompt ends: after its end-of-turn token (and the
    line break the template writes after it), or None when the template marks no turns."""
    end_of_turn = llama.tokenize(b"<|im_end|>", add_bos=False, special=True)
    if len(end_of_turn) != 1 or end_of_turn[0] not in tokens:
        return None
    end = list(tokens).index(end_of_turn[0]) + 1
    if end < len(tokens) and llama.detokenize([tokens[end]]) == b"\n":
        end += 1
    return end if end < len(tokens) else None


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__
