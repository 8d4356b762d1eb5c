"""``yamb play``: people against bots (or bots alone) in the terminal."""

from __future__ import annotations

import argparse

from yamb_app.cli import options
from yamb_app.cli.options import add_table_arguments, arg

TABLE_AND_SEATS = ("preset", "dice", "joker", "columns", "humans", "bots", "seed")  # a saved game has its own

HELP = "play a game in the terminal: people against bots"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_table_arguments(parser)
    parser.set_defaults(preset=None)  # "yamb", unless --load gives the saved game's
    parser.add_argument("--humans", type=arg(options.integer(0, 64)), default=None, help="people at the table (default 1)")
    parser.add_argument("--bots", type=arg(options.integer(0, 64)), default=None, help="bots at the table (default 1)")
    parser.add_argument("--bot", default=None, metavar="NAME",
                        help="the bots' player name or weights file (default: the strongest available); "
                             "also gives hints")
    parser.add_argument("--seed", type=arg(options.seed), default=None, help="dice seed (default: a random one, printed)")
    parser.add_argument("--hints", action="store_true", help="show what the bot would do at every decision")
    parser.add_argument("--coach", default=None, metavar="NAME",
                        help="the coach that values each of your moves and reviews the game: optimal (exact; "
                             "the default on Yatzy and Yahtzee), else a search player (default best)")
    parser.add_argument("--no-coach", action="store_true",
                        help="no word from the coach after your moves or at the end, and no chances to win shown")
    parser.add_argument("--target", type=arg(options.integer(0, 10_000)), default=None, metavar="POINTS",
                        help="a player alone: show the chance of a final score of at least POINTS as the game goes on")
    parser.add_argument("--save", default=None, metavar="FILE", type=arg(options.output_file),
                        help="save the game to FILE after every turn and when interrupted")
    parser.add_argument("--load", default=None, metavar="FILE", type=arg(options.input_file),
                        help="resume the game saved in FILE (its table and players; saves go back to FILE "
                             "unless --save is given)")


def run(args: argparse.Namespace) -> int:
    import secrets
    from pathlib import Path

    from rich.console import Console

    from robo_players.registry import check_name
    from yamb.errors import YambError
    from yamb.game import Game
    from yamb_app.cli.options import layout_from
    from yamb_app.coach import check_target, coach_for, finals_for_table, wants_chances
    from yamb_app.seats import default_bot
    from yamb_app.terminal.savefile import SaveFileError, check_replaceable, read_save
    from yamb_app.terminal.session import Seat, Session

    console = Console(highlight=False, markup=False)
    if args.save is not None:
        check_replaceable(args.save)
    if args.load is not None:
        given = [name for name in TABLE_AND_SEATS if getattr(args, name) is not None]
        if given:
            raise YambError(f"--load plays the saved game's table and seats; drop --{given[0]}")
        snapshot, seat_dicts = read_save(args.load)
        try:
            game = Game.from_dict(snapshot)
        except (YambError, TypeError, AttributeError) as error:  # a bad move, or a value of the wrong type
            raise SaveFileError(f"{args.load} is damaged: {error}") from None
        seats = [Seat(**seat) for seat in seat_dicts]
        bot = args.bot or default_bot(game.layout)
        check_name(bot, game.layout)
        header = f"resuming {args.load}"
    else:
        args.humans = 1 if args.humans is None else args.humans
        args.bots = 1 if args.bots is None else args.bots
        if args.humans + args.bots < 1:
            raise YambError("--humans and --bots are both 0: someone must play")
        layout = layout_from(args, players=args.humans + args.bots, named=(args.bot,) if args.bot else ())
        bot = args.bot or default_bot(layout)
        check_name(bot, layout)  # an unknown bot said before the game and its coach are made (seconds)
        seed = secrets.randbelow(2**32) if args.seed is None else args.seed
        game = Game(layout.rules, layout.columns, layout.players, seed=seed)
        seats = [Seat("You" if args.humans == 1 else f"Player {i + 1}") for i in range(args.humans)]
        seats += [Seat(bot if args.bots == 1 else f"{bot} {i + 1}", bot) for i in range(args.bots)]
        header = f"yamb play: {layout.rules.name} [{', '.join(layout.columns)}], seed {seed}"
    check_target(args.target, game.players)
    save = args.save or args.load
    coach = None if args.no_coach else coach_for(game.layout, args.coach)
    finals = finals_for_table(game.layout, coach) if coach is not None and wants_chances(game.players, args.target) \
        else None
    session = Session(game, seats, console, hint_bot=bot, save_path=None if save is None else Path(save),
                      hints=args.hints, coach=coach, finals=finals, target=args.target)
    console.print(header)  # the bots are loaded (or refused in one line) before anything is shown
    return session.run()
