"""The one assembly of the box's turns: engines, skills, clock, volume, history, reminders and the journal.

Every command that answers a question uses it: `talkbox run` (the box), `talkbox ask` with no box running, the demo,
the bench and the soak. So what is measured is what ships: a question a skill answers on the box is answered by the
skill everywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

from daemon.config import Config
from daemon.events import EventBus
from daemon.home.link import BoxSide, HomeLink
from daemon.ports import AudioSink, Engines
from daemon.service.journal import TurnJournal
from daemon.service.statefile import StateStore, TurnSaver
from daemon.skills import intents, pace
from daemon.skills.about_box import BoxFacts
from daemon.skills.clock import BoxClock, boot_id
from daemon.skills.reminders import Reminder
from daemon.skills.replies import STOCK_REPLIES
from daemon.skills.skills import Skills
from daemon.skills.tools import ToolCaller
from daemon.turn.alarm_clock import AlarmClock
from daemon.turn.keeper import TurnKeeper
from daemon.turn.run import ASK_AGAIN_REPLY, ASK_AGAIN_STILL
from daemon.turn.volume import VolumeSink


@dataclass
class Assembly:
    """The box's turns, put together and running on the loop."""

    keeper: TurnKeeper
    skills: Skills | None
    saver: TurnSaver | None
    """Keeps the conversation, the settings and the reminders across restarts (None: nothing is kept)."""
    sink: VolumeSink
    home: HomeLink | None
    """Where a Home Assistant bridge registers over the control socket (None without skills)."""


def build_keeper(
    config: Config,
    engines: Engines,
    speaker: AudioSink,
    bus: EventBus,
    *,
    heartbeat: Callable[[], None] | None = None,
) -> tuple[TurnKeeper, Skills | None, VolumeSink]:
    """The turn keeper with the skills the config asks for, speaking through the volume control."""
    sink = VolumeSink(speaker, config.skills.volume)
    skills = (
        Skills(BoxClock(config.skills.trust_clock), sink, boot_id(), meaning=engines.meaning, voice=engines.tts)
        if config.skills.enabled
        else None
    )
    keeper: TurnKeeper | None = None
    if skills is not None:
        # NOTE: the link is only a door: nothing is a home command until a bridge registers through the control socket.
        home = HomeLink(
            lambda event: keeper.emit(event) if keeper is not None else None, config.homeassistant.timeout_s
        )
        home.questions = config.homeassistant.questions == "homeassistant"
        skills.home = home
    keeper = TurnKeeper(
        engines,
        sink,
        config.listen,
        bus,
        heartbeat=heartbeat,
        skills=skills,
        choose_skill=ToolCaller(engines.llm) if skills is not None and config.skills.tool_calls else None,
        ring_s=config.skills.ring_s,
    )
    if skills is not None:
        button = config.button
        skills.about = BoxFacts(
            model=engines.llm.model_name,
            wake_phrase=keeper.listener.wake_phrase,
            keeps_history=config.state.keep_history,
            forget_hold_s=button.forget_hold_s,
            forget_after_s=config.llm.forget_after_s,
            shutdown_hold_s=button.shutdown_hold_s if button.enabled and button.shutdown else None,
        )
    return keeper, skills, sink


@contextlib.asynccontextmanager
async def assembled(
    config: Config,
    engines: Engines,
    speaker: AudioSink,
    bus: EventBus,
    *,
    heartbeat: Callable[[], None] | None = None,
    state_dir: Path | None = None,
    reminders: bool = True,
) -> AsyncIterator[Assembly]:
    """The box's turns, running on this loop until the block ends; `state_dir` keeps what the box keeps.

    Without `reminders` timers and alarms are kept (and saved) but never rung: a one-off command leaves them to the box.
    """
    keeper, skills, sink = build_keeper(config, engines, speaker, bus, heartbeat=heartbeat)
    async with contextlib.AsyncExitStack() as stack:
        keeper.start()
        stack.push_async_callback(keeper.close)
        stack.callback(keeper.stop_speaking)
        bus.subscribe(TurnJournal(engines.llm.model_name))
        saver: TurnSaver | None = None
        missed: list[Reminder] = []
        if state_dir is not None:
            saver, missed = _restore(config, engines, skills, bus, keeper, state_dir)
            stack.callback(saver.save)
        if skills is not None:
            await asyncio.get_running_loop().run_in_executor(None, intents.warm_up)
            # NOTE: "No timers are running." sounds at once the first time too; so does asking again
            keeper.voice_ahead((*STOCK_REPLIES, ASK_AGAIN_REPLY, ASK_AGAIN_STILL))
        if skills is not None and reminders:
            alarm_clock = AlarmClock(skills, keeper, keeper.emit, saver.save if saver is not None else _nothing)
            alarm_clock.missed(missed)
            bus.subscribe(alarm_clock.on_event)
            ticking = asyncio.ensure_future(alarm_clock.run())
            stack.push_async_callback(_stop, ticking)
            if len(skills.reminders):
                alarm_clock.changed()  # the display counts down what was restored
        home = skills.home if skills is not None and isinstance(skills.home, HomeLink) else None
        if home is not None and skills is not None:
            home.box = _box_side(keeper, skills, saver)
            bus.subscribe(home.on_event)
        yield Assembly(keeper, skills, saver, sink, home)


async def _stop(task: asyncio.Future[None]) -> None:
    """Cancel `task` and wait until it has ended."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def _box_side(keeper: TurnKeeper, skills: Skills, saver: TurnSaver | None) -> BoxSide:
    """What Home Assistant may do to the box: announce through the keeper, read and set the volume."""

    def change(muted: bool | None, volume: int | None) -> None:
        if muted is not None:
            skills.volume.muted = muted
        if volume is not None:
            skills.volume.level = volume
        if saver is not None:
            saver.save()  # NOTE: kept across restarts as a spoken change is

    return BoxSide(keeper.announce, lambda: (skills.volume.muted, skills.volume.level), change)


def _nothing() -> None:
    """Nothing to save (no state directory)."""


def _restore(
    config: Config, engines: Engines, skills: Skills | None, bus: EventBus, keeper: TurnKeeper, directory: Path
) -> tuple[TurnSaver, list[Reminder]]:
    """Bring back the conversation, the volume, the clock and the reminders; those missed while off."""
    store = StateStore(directory.expanduser(), config.state.keep_history)
    saver = TurnSaver(store, engines.memory, keeper.emit)
    state = saver.restore()
    if state.history:
        engines.llm.read_history()  # a conversation brought back is read before its first question, not by it
    missed: list[Reminder] = []
    if skills is not None:
        settings = state.settings
        volume, muted = settings.get("volume"), settings.get("muted")
        if isinstance(volume, int) and 0 <= volume <= 100:
            skills.volume.level = volume
        skills.volume.muted = muted is True
        offset, on_boot = settings.get("clock_offset_s"), settings.get("clock_set_on_boot")
        if isinstance(offset, float | int) and isinstance(on_boot, str):
            skills.clock.restore(float(offset), on_boot)
        paced = settings.get("pace")
        if skills.voice is not None and isinstance(paced, float | int) and pace.usable(paced) and paced != 1.0:
            skills.voice.pace = float(paced)
        missed = skills.reminders.restore(list(state.reminders), skills.now_boot(), skills.wall())
        saver.reminders = skills.reminders.to_plain
        saver.live_settings = skills.settings
    # NOTE: saved on the loop thread (a few kB with one fsync, only when the state changed), and before any
    # other subscriber hears of the turn's end: whoever sees a TurnEnded may rely on it being on the card.
    bus.subscribe(saver.on_event, first=True)
    return saver, missed
