"""Questions about the box itself, inside its one assembly on the stand-in engines: each is answered by the box from
what its settings make it (the model it runs, its wake phrase, what it keeps), the model never asked; asked to speak
more slowly it does, and keeps that pace across a restart; an answer cut off at its length limit ends at a sentence."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from daemon.config import ButtonConfig, StateConfig
from daemon.events import AnswerFinished, SentenceReady, SkillCalled
from daemon.ports import Engines
from daemon.skills.about_box import spoken_model
from tests.fast.test_skills_in_the_box import AssembledBox, box_config
from tests.harness import of
from tests.inprocess import ScriptedModel, ScriptedRecogniser, ToneVoice, stand_in_engines

ABOUT = [
    ("Are you recording me?", "privacy"),
    ("do you work offline", "works_offline"),
    ("Are you Alexa?", "other"),
    ("are you alive", "alive"),
    ("what language model do you use", "model"),
    ("can you hear me", "hearing"),
    ("how do I turn you off", "power"),
    ("how do i set a timer", "how_to"),
    ("who are you", "identity"),
]


def test_questions_about_the_box_are_answered_by_the_box_not_guessed(
    stand_ins: Engines, model: ScriptedModel, tmp_path: Path
) -> None:
    with AssembledBox(box_config(tmp_path), stand_ins, tmp_path) as box:
        answers = {topic: box.ask(said).answer for said, topic in ABOUT}
        wake = box.parts.keeper.listener.wake_phrase
    calls = of(box.events, SkillCalled)
    assert [(e.skill, e.by) for e in calls] == [("about", "template")] * len(ABOUT)
    assert model.asked == []  # the model made up "Yes, I am recording you." and "No, I do not work offline."
    assert answers["privacy"].startswith("Nothing you say leaves this box") and "no recordings" in answers["privacy"]
    assert (f"I listen for {wake} all the time" if wake else "only while you press my button") in answers["privacy"]
    assert "until you say forget our conversation, or switch me off" in answers["privacy"]  # nothing kept on the card
    assert answers["privacy"].endswith("or once we haven't spoken for 5 minutes.")  # llm.forget_after_s
    assert answers["works_offline"].startswith("Yes: I work entirely offline.")
    assert answers["other"].startswith("No, I'm not Alexa.")
    assert answers["alive"].startswith("No.")
    assert answers["model"].startswith(f"My answers come from {spoken_model(model.model_name)},")
    assert answers["hearing"] == "Yes, I can hear you."
    assert "To turn me off, unplug me;" in answers["power"]  # the button's shutdown hold is off by default
    assert answers["how_to"].startswith("Say, for example: set a timer for 10 minutes")


def test_what_the_box_says_of_itself_follows_its_settings(stand_ins: Engines, tmp_path: Path) -> None:
    config = dataclasses.replace(
        box_config(tmp_path),
        state=StateConfig(dir=str(tmp_path / "state"), keep_history=True),
        button=ButtonConfig(shutdown=True, shutdown_hold_s=6.0, forget_hold_s=2.0),
    )
    with AssembledBox(config, stand_ins, tmp_path) as box:
        privacy = box.ask("do you save what I say").answer
        power = box.ask("turn yourself off").answer
        forget = box.ask("how do I make you forget").answer
    assert "kept on my SD card" in privacy and "switch me off" not in privacy
    assert privacy.endswith("until you say forget our conversation, or once we haven't spoken for 5 minutes.")
    assert "hold my button for 6 seconds to shut me down" in power
    assert forget == "Say forget our conversation, or hold my button for 2 seconds."


@pytest.mark.parametrize(
    "said", ["who made the first robot", "are robots alive", "how old is the universe", "do dogs dream", "turn it off"]
)
def test_a_question_worded_near_them_is_still_the_models(
    stand_ins: Engines, model: ScriptedModel, tmp_path: Path, said: str
) -> None:
    with AssembledBox(box_config(tmp_path), stand_ins, tmp_path) as box:
        assert box.ask(said).answer == f"You said: {said}"
    assert of(box.events, SkillCalled) == [] and model.asked == [said]


def test_asked_to_speak_more_slowly_it_does_and_keeps_that_pace_across_a_restart(
    stand_ins: Engines, voice: ToneVoice, tmp_path: Path
) -> None:
    with AssembledBox(box_config(tmp_path), stand_ins, tmp_path) as box:
        assert box.ask("speak more slowly please").answer == "Okay, I'll speak more slowly."
        assert box.ask("you're talking too fast").answer == "Okay, I'll speak more slowly."
        assert voice.pace == pytest.approx(1.25 * 1.25, abs=0.01)
    saved = json.loads((tmp_path / "state" / "state.json").read_text())
    assert saved["settings"]["pace"] == voice.pace
    voice.pace = 1.0  # a new process: the voice starts at its configured pace
    with AssembledBox(box_config(tmp_path), stand_ins, tmp_path) as box:
        assert voice.pace == pytest.approx(1.56, abs=0.01)  # brought back from the state file
        assert box.ask("slow down").answer == "Okay, I'll speak more slowly."
        assert box.ask("You're talking too fast, slow down.").answer == "That's as slowly as I speak."
        assert box.ask("speak faster").answer == "Okay, I'll speak faster."
        assert box.ask("speak at your usual pace").answer == "Okay, I'll speak at my usual pace."
    assert voice.pace == 1.0


def test_a_slower_pace_makes_the_same_words_last_longer(stand_ins: Engines, voice: ToneVoice, tmp_path: Path) -> None:
    with AssembledBox(box_config(tmp_path), stand_ins, tmp_path) as box:
        before = sum(len(chunk) for chunk in voice.synthesize("Timer cancelled."))
        box.ask("speak slower")
        after = sum(len(chunk) for chunk in voice.synthesize("Timer cancelled."))
    assert after == pytest.approx(before * 1.25, rel=0.01)


def test_an_answer_cut_off_at_its_length_limit_ends_at_its_last_whole_sentence(
    recogniser: ScriptedRecogniser, voice: ToneVoice, tmp_path: Path
) -> None:
    story = "Once upon a time there was a dragon. It lived in a cave by the sea. One day a knight came to"
    model = ScriptedModel(answers={"tell me a story": story}, max_answer_words=18)
    with AssembledBox(box_config(tmp_path), stand_in_engines(model, recogniser, voice), tmp_path) as box:
        result = box.ask("tell me a story", speak=True)
    whole = "Once upon a time there was a dragon. It lived in a cave by the sea."
    assert result.answer == whole
    assert [e.text for e in of(box.events, AnswerFinished)] == [whole]
    said = " ".join(e.text for e in of(box.events, SentenceReady))
    assert said == whole and "knight" not in " ".join(voice.said)  # "One day a knight" was never said
    assert model.conversation.exchanges()[-1].answer == whole  # nor remembered as the model's words
