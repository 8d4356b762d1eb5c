"""The coach as people see it, for the terminal, the ``yamb review`` command and the web app.

One coach per table and coach name is built and kept (``coach_for``): the exact solver's
values load once, a search player's tables take a while to build; so is the model of the
final totals that gives each player's chance to win (``finals_for_table``: exact from the
Yatzy score tables when they are built, estimated elsewhere). A review is printed as a table
of each player's points (and chance to win) lost, a text chart of each player's expected final
score or chance to win turn by turn, and the biggest losses with the better decision.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from robo_players.coach.outcomes import KeepOutcomes, keep_outcomes
from robo_players.coach.review import CLASSES, Decision, Review
from robo_players.coach.values import Coach, make_coach
from robo_players.coach.win_chances import Finals, finals_for
from yamb.errors import YambError
from yamb.game import Game
from yamb.layout import Layout
from yamb.table import Table

MAX_COACHES = 8
MARKS = "*o+x#@%&"  # a player's mark in the chart
_coaches: OrderedDict[tuple, Coach] = OrderedDict()
_finals: OrderedDict[tuple, Finals] = OrderedDict()


def coach_for(layout: Layout, name: str | None = None) -> Coach:
    """The coach of ``layout``'s table (``make_coach``), built once and kept."""
    return _kept(_coaches, (Table.of(layout), name), lambda: make_coach(layout, name))


def finals_for_table(layout: Layout, coach: Coach) -> Finals:
    """The model of the final totals of ``layout``'s table for ``coach`` (``finals_for``), built once and kept."""
    return _kept(_finals, (Table.of(layout), coach.name), lambda: finals_for(coach, layout))


def _kept(kept: OrderedDict, key: tuple, make: Callable[[], Any]) -> Any:
    """``kept[key]``, made by ``make()`` the first time; the ``MAX_COACHES`` used last are kept."""
    if key not in kept:
        kept[key] = make()
        while len(kept) > MAX_COACHES:
            kept.popitem(last=False)
    kept.move_to_end(key)
    return kept[key]


def check_target(target: int | None, players: int) -> None:
    """Nothing, or a precise error: a target score is for a player alone."""
    if target is not None and players != 1:
        raise YambError(f"a target score is for a player alone, not a table of {players}: "
                        "with others the chances are of winning")


def wants_chances(players: int, target: int | None) -> bool:
    """Whether there are chances to show: to win (two or more players), or of a player's target."""
    return players > 1 or target is not None


OTHERS = " · "  # between the other players' chances


def percent(p: float) -> str:
    """A chance in words: 0.1 % steps, with ``<0.1%`` and ``>99.9%`` for the ends that are not certain,
    ``0%`` and ``100%`` for those that are."""
    if p <= 0:
        return "0%"
    if p >= 1:
        return "100%"
    if p < 0.0005:
        return "<0.1%"
    if p >= 0.9995:
        return ">99.9%"
    return f"{100 * p:.1f}%"


def goal_text(target: int | None) -> str:
    return "chance to win" if target is None else f"chance of {target} or more"


def kind_text(exact: bool | None) -> str:
    return "exact" if exact else "estimated"


def standing_text(names: list[str], chances, exact: bool, target: int | None = None) -> str:
    """Every player's chance in one line: ``chance to win (exact): You 48.1% · best 51.9%``."""
    shown = " · ".join(f"{name} {percent(float(p))}" for name, p in zip(names, chances))
    return f"{goal_text(target)} ({kind_text(exact)}): {shown}"


def win_parts(decision: Decision, target: int | None = None,
              names: list[str] | None = None) -> tuple[str, list[str], str | None, str | None]:
    """The mover's chance before and after a decision; each other player's (with ``names``, else none); what it lost
    against the action best for it and its chance after that action (None when it lost nothing). Empty
    without chances."""
    if decision.win_before is None:
        return "", [], None, None
    p = decision.player
    before, after = decision.win_before, decision.win_after
    chance = f"{goal_text(target)} {percent(before[p])} -> {percent(after[p])}"
    others = [f"{names[q]} {percent(before[q])} -> {percent(after[q])}" for q in range(len(before)) if q != p] \
        if names else []
    if decision.win_loss < 0.0005:
        return chance, others, None, None
    return chance, others, f"-{100 * decision.win_loss:.1f} points of chance", percent(decision.win_best_value)


def win_text(decision: Decision, target: int | None = None, names: list[str] | None = None) -> str:
    """The mover's chance before and after a decision (the others' too, with ``names``), and what it lost
    against the action best for it."""
    chance, others, lost, better = win_parts(decision, target, names)
    return chance + (f" (others: {OTHERS.join(others)})" if others else "") + (
        f", {lost} (better for it: {decision.win_best}, {better})" if lost else "")


def _fitted(atoms: list[str], width: int) -> list[str]:
    """``atoms`` joined by spaces into lines of at most ``width`` (an atom longer than that alone on its line)."""
    lines = [""]
    for atom in atoms:
        if lines[-1] and len(lines[-1]) + 1 + len(atom) > width:
            lines.append(atom)
        else:
            lines[-1] = f"{lines[-1]} {atom}".lstrip()
    return lines


def note_lines(decision: Decision, coach_kind: str, target: int | None = None, exact: bool | None = None,
               names: list[str] | None = None, width: int = 76) -> list[str]:
    """The coach's word on a move, a clause a line, each within ``width`` however long the moves' names
    (a line breaks between clauses, never inside a move's name): the class and loss, the better move, the
    mover's chance, the others', the chance lost and the move that loses none (``exact``: None without
    chances)."""
    verdict, better = verdict_parts(decision)
    lines = _fitted([f"coach ({coach_kind}):", f"{decision.played}:", verdict], width)
    if better:
        lines += _fitted(["better:", f"{decision.best},", better], width)
    if exact is not None:
        chance, others, lost, best = win_parts(decision, target, names)
        lines += [f"{chance} ({kind_text(exact)})"] if chance else []
        if others:
            lines += _fitted(["others:", *(f"{o}{OTHERS.rstrip()}" for o in others[:-1]), others[-1]], width)
        lines += _fitted([f"{lost};", "better for it:", f"{decision.win_best},", best], width) if lost else []
    return lines


def values_kind(review_or_coach: Review | Coach) -> str:
    """What the values are: ``exact`` or the coach bot's."""
    if review_or_coach.exact:
        return "exact values"
    return f"the {review_or_coach.coach if isinstance(review_or_coach, Review) else review_or_coach.name} bot's values"


def verdict_parts(decision: Decision) -> tuple[str, str | None]:
    """A decision's class and the points it cost, and the values of the better decision (None when it was
    best)."""
    if decision.forced:
        return "the only move", None
    if decision.loss < 0.005:
        return f"best (expected final score {decision.best_value:.1f})", None
    return f"{decision.label}, -{decision.loss:.1f} points", f"{decision.best_value:.1f} against {decision.value:.1f}"


def loss_text(decision: Decision) -> str:
    """One line on a decision: its class and the points it cost, and the better decision."""
    verdict, better = verdict_parts(decision)
    return f"{decision.played}: {verdict}" + (f" (better: {decision.best}, {better})" if better else "")


def text_chart(review: Review, names: list[str], height: int = 10, width: int = 64, win: bool = False) -> list[str]:
    """Each player's expected final score (``win``: chance in percent) by turn, one mark per player, as lines
    of text."""
    points = [(p.player, t, 100 * v if win else v) for p in review.players for t, v in
              (p.win_curve if win else p.curve)]
    if not points:
        return []
    turns = max(t for _, t, _ in points)
    low, high = min(v for *_, v in points), max(v for *_, v in points)
    if win:
        low, high = 0.0, 100.0
    span = max(high - low, 1.0)
    wide = max(1, min(4, width // turns))  # columns per turn
    step = max(1, -(-turns // width))  # turns per column
    cols = -(-turns // step) * wide
    grid = [[" "] * cols for _ in range(height)]
    for p, t, v in points:
        row = height - 1 - round((v - low) / span * (height - 1))
        grid[row][(t - 1) // step * wide] = MARKS[p % len(MARKS)]
    labels = [f"{high - i * span / (height - 1):6.0f} |" for i in range(height)]
    lines = [label + "".join(cells) for label, cells in zip(labels, grid)]
    lines.append(" " * 7 + "+" + "-" * cols)
    last = "end" if review.over else f"turn {turns}"
    lines.append(" " * 8 + (last if turns == 1 else f"turn 1{' ' * max(cols - 6 - len(last), 1)}{last}"))
    lines.append("        " + "   ".join(f"{MARKS[i % len(MARKS)]} {name}" for i, name in enumerate(names)))
    return lines


def review_text(review: Review, names: list[str], top: int = 5, chart: str = "points") -> str:
    """The review printed: totals per player, the chart (``chart``: ``points``, the expected final score, or
    ``win``, the chance to win or of the target), the biggest losses."""
    state = "finished" if review.over else "not finished"
    lines = [f"Review by the coach {review.coach} ({values_kind(review)}), game {state}", ""]
    chances = review.win is not None
    if chances:
        lines[-1:] = [f"{goal_text(review.target).capitalize()}: {review.win}", ""]
    w = max(len(name) for name in names) + 2
    lines.append(f"{'player':<{w}}{'score':>6}{'lost':>8}" + (f"{'chance lost':>13}" if chances else "")
                 + "".join(f"{name:>12}" for name, _ in CLASSES))
    for p in review.players:
        lost = sum(d.win_loss for d in review.decisions if d.player == p.player) if chances else 0.0
        lines.append(f"{names[p.player]:<{w}}{p.score:>6}{p.loss:>8.1f}" + (f"{100 * lost:>12.1f}%" if chances else "")
                     + "".join(f"{p.classes[name]:>12}" for name, _ in CLASSES))
    win = chart == "win" and chances
    title = f"{goal_text(review.target).capitalize()} by turn (%):" if win else "Expected final score by turn:"
    lines += ["", title, *text_chart(review, names, win=win), ""]
    biggest = review.biggest(top)
    lines.append("Biggest losses:" if biggest else "No decision lost points.")
    for d in biggest:
        dice = " ".join(map(str, d.dice))
        lines.append(f"  {names[d.player]}, turn {d.turn}, roll {d.roll}, dice {dice}: {loss_text(d)}")
        if chances:
            lines.append(f"      {win_text(d, review.target, names)}")
    bounds = ", ".join(f"{name} below {bound:g}" for name, bound in CLASSES[:-1])
    lines += ["", f"Classes by points lost: {bounds}, {CLASSES[-1][0]} from {CLASSES[-2][1]:g}."]
    if chances:
        lines.append("Chance lost: the mover's chance after the action best for it less after the one played, "
                     "in points of percent.")
    return "\n".join(lines)


def review_data(review: Review, names: list[str]) -> dict[str, Any]:
    """The review as JSON data, each player named."""
    data = review.to_dict()
    data["values"] = values_kind(review)
    for p in data["players"]:
        p["name"] = names[p["player"]]
    return data


def keep_chances(game: Game, faces: tuple[int, ...] | list[int]) -> KeepOutcomes:
    """The chances of the patterns of the mover's open rows after keeping ``faces`` now; the patterns the
    keep can no longer make by the turn's end are left out."""
    own = game.table()
    open_rows = [row for row in game.rows if any(column[row] is None for column in own.values())]
    outcomes = keep_outcomes(game.rules, faces, game.rolls_left, open_rows)
    possible = [row for row, p in outcomes.by_end.items() if p > 0]
    outcomes.next_roll = {row: outcomes.next_roll[row] for row in possible}
    outcomes.by_end = {row: outcomes.by_end[row] for row in possible}
    return outcomes


def chances_text(chances: KeepOutcomes) -> str:
    """The chances by the turn's last roll, in one line."""
    return ", ".join(f"{row.replace('_', ' ')} {percent(p)}" for row, p in chances.by_end.items())
