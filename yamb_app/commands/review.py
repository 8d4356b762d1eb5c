"""``yamb review``: every decision of a saved game valued against the best one."""

from __future__ import annotations

import argparse

from yamb_app.cli import options
from yamb_app.cli.options import arg

HELP = "review a saved game of yamb play: each decision's points lost against the best one"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("savefile", type=arg(options.input_file), metavar="SAVEFILE",
                        help="a game saved by yamb play --save")
    parser.add_argument("--json", action="store_true", help="print the review as JSON")
    parser.add_argument("--coach", default=None, metavar="NAME",
                        help="the player whose values judge the decisions: optimal (exact; the default on "
                             "Yatzy and Yahtzee), else a search player or guided weights file (default best)")
    parser.add_argument("--top", type=arg(options.integer(0, 1000)), default=5,
                        help="the biggest losses listed (default 5)")
    parser.add_argument("--chart", choices=("points", "win"), default="points",
                        help="the chart by turn: each player's expected final score (points, the default) or chance "
                             "to win (win; of the target with --target)")
    parser.add_argument("--target", type=arg(options.integer(0, 10_000)), default=None, metavar="POINTS",
                        help="a game of one player: the chances are of a final score of at least POINTS")


def run(args: argparse.Namespace) -> int:
    import json

    from robo_players.coach.review import review_game
    from yamb.errors import YambError
    from yamb.game import Game
    from yamb_app.coach import check_target, coach_for, finals_for_table, review_data, review_text, wants_chances
    from yamb_app.terminal.savefile import SaveFileError, read_save

    snapshot, seats = read_save(args.savefile)
    try:
        game = Game.from_dict(snapshot)
    except (YambError, TypeError, AttributeError) as error:
        raise SaveFileError(f"{args.savefile} is damaged: {error}") from None
    names = [seat["name"] + (f" ({seat['bot']})" if seat["bot"] else "") for seat in seats]
    check_target(args.target, game.players)
    if args.chart == "win" and not wants_chances(game.players, args.target):
        raise YambError("--chart win charts the chances to win of two or more players, or of a --target alone")
    coach = coach_for(game.layout, args.coach)
    finals = finals_for_table(game.layout, coach) if wants_chances(game.players, args.target) else None
    review = review_game(game, coach, finals, args.target)
    if args.json:
        print(json.dumps(review_data(review, names), indent=1))
    else:
        print(review_text(review, names, args.top, args.chart))
    return 0
