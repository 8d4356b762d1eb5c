"""The presets of docs/rules.md, by name."""

from __future__ import annotations

from yamb.presets import jamb6, yahtzee, yamb, yatzy
from yamb.presets.spec import PresetSpec

PRESETS: dict[str, PresetSpec] = {s.name: s for s in (yamb.SPEC, jamb6.SPEC, yatzy.SPEC, yahtzee.SPEC)}

__all__ = ["PRESETS", "PresetSpec"]
