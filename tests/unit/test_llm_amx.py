"""The local model loads without llama.cpp's AMX kernels on processors that report AMX."""

from __future__ import annotations

from pathlib import Path

import llama_cpp.llama

from polyrag.llm.local import cpu_has_amx, without_amx


def test_amx_is_read_from_the_processor_flags(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu avx2 avx512f amx_bf16 amx_tile amx_int8\n")
    assert cpu_has_amx(cpuinfo)
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu avx2 avx512f\n")
    assert not cpu_has_amx(cpuinfo)
    assert not cpu_has_amx(tmp_path / "missing")


def test_the_model_parameters_leave_out_extra_buffer_types_only_while_loading() -> None:
    bindings = llama_cpp.llama.llama_cpp
    assert bindings.llama_model_default_params().use_extra_bufts
    with without_amx():
        assert not bindings.llama_model_default_params().use_extra_bufts
    assert bindings.llama_model_default_params().use_extra_bufts
