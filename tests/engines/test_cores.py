"""The cores, shared: the language model decodes on all of them only while the recogniser and the voice rest."""

from __future__ import annotations

import math
import os
import threading
from pathlib import Path

import pytest

from daemon.config import LlmConfig
from daemon.engines import cores
from daemon.engines.cores import BACK_OFF_TOKENS, CORES, Cores, DecodeThreads
from daemon.engines.llm import LlamaModel
from daemon.modelstore.manifest import load_manifest, verify

USUAL = (1, 1)
ALONE = (2, 2)


def threads(cores: Cores) -> tuple[DecodeThreads, list[tuple[int, int]]]:
    """Threads chosen for two cores, and what was set on llama.cpp."""
    applied: list[tuple[int, int]] = []
    return DecodeThreads(USUAL, ALONE, lambda n, batch: applied.append((n, batch)), cores), applied


def test_every_core_while_no_other_engine_computes_and_the_usual_threads_while_one_does() -> None:
    cores = Cores()
    chosen, applied = threads(cores)
    assert chosen.choose() == ALONE
    with cores.working():
        assert chosen.choose() == USUAL
        with cores.working():  # the recogniser and the voice at once
            assert chosen.choose() == USUAL
        assert chosen.choose() == USUAL
    assert not cores.others_working
    assert chosen.choose() == ALONE
    assert applied == [ALONE, USUAL, ALONE]  # llama.cpp is told only of changes


def test_every_core_backs_off_when_it_proves_slower_and_is_tried_again_later() -> None:
    chosen, _ = threads(Cores())
    assert chosen.choose() == ALONE
    chosen.took(0.08)
    assert chosen.choose() == USUAL  # one token on the usual threads, to compare with
    chosen.took(0.13)
    assert chosen.choose() == ALONE
    chosen.took(0.30)  # another process takes a core: one slow token is not enough...
    assert chosen.choose() == ALONE
    chosen.took(0.30)  # ...a slower run of them is
    backed_off = 0
    while chosen.choose() == USUAL:
        chosen.took(0.13)
        backed_off += 1
    assert backed_off == BACK_OFF_TOKENS  # then every core is tried afresh


def test_a_failing_engine_still_frees_its_core() -> None:
    cores = Cores()
    with pytest.raises(RuntimeError), cores.working():
        raise RuntimeError("the voice failed")
    assert not cores.others_working


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: nothing to share")
def test_the_model_decodes_on_every_core_unless_another_engine_computes(monkeypatch: pytest.MonkeyPatch) -> None:
    import llama_cpp

    # NOTE: a model of its own (the small one: the cores are shared alike), whose timings no earlier test left; and
    # the back-off (tested above) would follow a busy machine's timing: here only the other engines count.
    monkeypatch.setattr(cores, "SLOWER", math.inf)
    path = verify(load_manifest().get("smollm2-135m-instruct-q4_1"), Path("/unused"))
    llm = LlamaModel(path, LlmConfig(context_tokens=512, max_answer_tokens=24, seed=3, temperature=0.0))
    context = llm._llm._ctx.ctx
    decode, _ = llm.threads
    every = os.cpu_count() or 1
    if decode >= every:
        pytest.skip("the config already decodes on every core")

    def decoded_on(question: str) -> list[int]:
        llm.conversation.forget()
        return [llama_cpp.llama_n_threads(context) for _ in llm.respond(question)]

    try:
        first = decoded_on("Name three colours.")
        assert first.count(decode) <= 1 and first.count(every) >= len(first) - 1  # one token to compare with
        assert set(decoded_on("Name three birds.")) == {every}
        working = threading.Event()
        release = threading.Event()

        def voice() -> None:
            with CORES.working():
                working.set()
                release.wait(60)

        beside = threading.Thread(target=voice)
        beside.start()
        try:
            working.wait(5)
            assert set(decoded_on("Name three animals.")) == {decode}
        finally:
            release.set()
            beside.join()
        assert set(decoded_on("Name three fruits.")) == {every}
    finally:
        llm.close()
