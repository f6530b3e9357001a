"""Rules configurations and presets (docs/rules.md §1.1-1.8).

Every rule that varies between the source documents is one field of a frozen dataclass; every
document's rule set is a preset. Validation happens in ``__post_init__`` and raises
:class:`~domino_env.core.errors.ConfigError` naming the field, the value and what is allowed.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from .errors import ConfigError, as_int
from .tiles import tile_count

SUPPORTED_MAX_PIPS = (9, 12, 15, 18)

#: Hand sizes of seeds 002 and 003 (docs/rules.md §1.1 table): {max_pip: {players: tiles}}.
HAND_SIZE_TABLE: dict[int, dict[int, int]] = {
    12: {2: 15, 3: 15, 4: 15, 5: 12, 6: 12, 7: 11, 8: 11},
    9: {2: 9, 3: 9, 4: 9, 5: 7, 6: 7, 7: 7, 8: 6},
    15: {2: 15, 3: 15, 4: 15, 5: 15, 6: 15, 7: 13, 8: 13},
    18: {p: 15 for p in range(2, 9)},
}

RULE_CHOICES: dict[str, tuple[str, ...]] = {
    "hand_size_rule": ("equal_split", "table"),
    "first_turn": ("own_train", "any"),
    "doubles": ("satisfy", "double_double", "chain", "no_cover"),
    "drawn_tile": ("must_play", "may_play"),
    "marker_removal": ("own_train_play", "next_turn"),
    "station_source": ("set_aside", "highest_held"),
    "blocked_round": ("score", "void"),
    "game_end": ("rounds", "elimination"),
}


class _ConfigMixin:
    """What every rules config offers: the set's size and a JSON round trip."""

    max_pip: int

    @property
    def tile_count(self) -> int:
        """Number of tiles in the set."""
        return tile_count(self.max_pip)

    def to_dict(self) -> dict[str, Any]:
        """All fields as a JSON-ready dict."""
        return dataclasses.asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        """Config from a dict of fields, the inverse of :meth:`to_dict`: it starts from the values
        of the dict's ``"preset"`` (the class's default preset when the dict names none) with the
        dict's other keys over them, as ``from_preset(preset, **others)`` (``line_from_preset``
        for a :class:`LineConfig`) and ``records.record_config`` do. A dict from ``to_dict()``
        lists every field, so it gives an equal config whatever its preset; a trimmed one such as
        ``{"preset": "tren_mexicano"}`` gives that preset's rules (it gave the default rules
        under the preset's name).

        Raises:
            ConfigError: ``data`` is not a dict (``None`` or a list was a TypeError, or the
                default rules), names an unknown preset (or one of the other class's), or has an
                unknown or invalid field (a preset value that the dict's other fields make
                invalid is named as the preset's, with the field to give)."""
        if not isinstance(data, Mapping):
            raise ConfigError("data", data, f"a dict of {cls.__name__} fields, as to_dict() gives")
        overrides = dict(data)
        presets = LINE_PRESETS if issubclass(cls, LineConfig) else PRESETS
        name = overrides.pop("preset", next(f.default for f in fields(cls) if f.name == "preset"))
        if not _known(name, presets):
            raise ConfigError("preset", name, f"one of {tuple(presets)}")
        return _from_preset_values(cls, name, presets[name][1], overrides)



def _known(name: Any, names: Any) -> bool:
    """``name`` is one of ``names`` (a list or dict given as a preset is not, rather than a
    TypeError from hashing it)."""
    return isinstance(name, str) and name in names

@dataclass(frozen=True)
class MexicanTrainConfig(_ConfigMixin):
    """The rules of one Mexican Train game (docs/rules.md §1; defaults = seed 000, "Dominó Cubano
    (Tren Mexicano)").

    Attributes are documented in ``FIELD_DOCS`` (and docs/envs.md, built from it). Build one with
    :func:`from_preset` (or :meth:`from_dict`) to start from a document's rule set: the
    constructor does not apply a preset. ``MexicanTrainConfig(preset="tren_mexicano")`` is the
    default rules labelled ``tren_mexicano``, every field not given keeping the default above
    (a constructor cannot tell a field left out from one given its default value, and
    ``from_preset`` itself builds its result through it with every field given), and the label
    is what render titles show; ``from_preset("tren_mexicano")`` is the preset's rules.

    Raises:
        ConfigError: on any invalid field (``__post_init__``).
    """

    num_players: int = 4
    max_pip: int = 12
    hand_size: int | None = None
    hand_size_rule: str = "equal_split"
    first_turn: str = "own_train"
    doubles: str = "satisfy"
    drawn_tile: str = "must_play"
    marker_removal: str = "own_train_play"
    station_source: str = "set_aside"
    use_boneyard: bool = True
    use_mexican_train: bool = True
    blocked_round: str = "score"
    double_blank_points: int = 0
    game_end: str = "rounds"
    elimination_limit: int = 100
    first_player: int | None = None
    preset: str = "domino_cubano"

    def __post_init__(self) -> None:
        _normalise_ints(self)
        _check_int("num_players", self.num_players, 2, 8)
        if not _is_int(self.max_pip) or self.max_pip not in SUPPORTED_MAX_PIPS:
            raise ConfigError("max_pip", self.max_pip, f"one of {SUPPORTED_MAX_PIPS}")
        for name, allowed in RULE_CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ConfigError(name, value, f"one of {allowed}")
        for name in ("use_boneyard", "use_mexican_train"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(name, getattr(self, name), "True or False")
        _check_int("double_blank_points", self.double_blank_points, 0, 1000)
        _check_int("elimination_limit", self.elimination_limit, 1, 10**6)
        if self.first_player is not None:
            _check_int("first_player", self.first_player, 0, self.num_players - 1)
        if not _known(self.preset, PRESETS):
            raise ConfigError("preset", self.preset, f"one of {tuple(PRESETS)}")
        if self.hand_size is not None:
            _check_int("hand_size", self.hand_size, 1, tile_count(self.max_pip))
        hand = self.dealt_hand_size(self.num_players)
        if hand < 2 and self.station_source == "highest_held":
            # the station comes out of its holder's hand (docs/rules.md §1.7), which would be empty
            raise ConfigError("hand_size", hand, "at least 2 with station_source='highest_held' (the "
                              "station's holder places it from its hand, which would be left empty)")  # fmt: skip
        tiles = tile_count(self.max_pip)
        if self.num_players * hand + 1 > tiles:
            raise ConfigError(
                "hand_size",
                hand,
                f"at most {(tiles - 1) // self.num_players} tiles per hand: {self.num_players} "
                f"players x {hand} tiles + 1 station = {self.num_players * hand + 1} > {tiles} "
                f"tiles in the double-{self.max_pip} set",
            )

    def dealt_hand_size(self, players: int) -> int:
        """Tiles dealt to each of ``players`` seats at the start of a round (docs/rules.md §1.1, 1.7).

        ``hand_size`` overrides everything; ``use_boneyard=False`` deals as many tiles as allows an
        equal deal; otherwise ``hand_size_rule`` picks seed 000's formula or the seed 002/003 table.

        Raises:
            ConfigError: ``players`` is not a number of seats a round can deal to, 2 to
                ``num_players`` (0 was a ZeroDivisionError, 1 a hand of 88 or a KeyError).
        """
        p, number = self.num_players, as_int(players)
        if number is None or not 2 <= number <= p:
            raise ConfigError("players", players, f"the seats dealt to: an integer from 2 to num_players ({p})")
        players = number
        if self.hand_size is not None:
            return self.hand_size
        available = self.tile_count - (1 if self.station_source == "set_aside" else 0)
        if not self.use_boneyard:
            return (available - (1 if self.station_source == "highest_held" else 0)) // players
        if self.hand_size_rule == "table":
            return HAND_SIZE_TABLE[self.max_pip][players]
        # Seed 000: equal hands, leaving a boneyard of about twice as many tiles as players.
        return (self.tile_count - 1 - 2 * players) // players



FIELD_DOCS: dict[str, str] = {
    "num_players": "Seats at the table, 2 to 8 (default 4).",
    "max_pip": "Double-N set: 9, 12 (default), 15 or 18.",
    "hand_size": "Tiles dealt to each seat, overriding every hand-size rule (unset: the rules decide).",
    "hand_size_rule": "'equal_split' (seed 000: equal hands, boneyard ~2 x players) or 'table' "
    "(seeds 002/003 table).",
    "first_turn": "'own_train' (seed 000: first turn only starts the own train) or 'any' (seed 002).",
    "doubles": "'satisfy' (seed 000), 'double_double', 'chain' (seed 002) or 'no_cover'.",
    "drawn_tile": "'must_play' (seed 000: a drawn tile that fits is placed) or 'may_play' (seed 002).",
    "marker_removal": "'own_train_play' (seeds 000/002) or 'next_turn' (seed 000 variant).",
    "station_source": "'set_aside' (seeds 000/002) or 'highest_held' (seed 000 variant, seed 003).",
    "use_boneyard": "False = 'sin monte': leftovers set aside, never drawn (default True).",
    "use_mexican_train": "False = 'sin tren mexicano': personal trains only (default True).",
    "blocked_round": "'score' (seed 000: everybody counts) or 'void' (seed 002: scores nothing).",
    "double_blank_points": "Pips the 0-0 counts in a hand (default 0; seed 002: 10).",
    "game_end": "'rounds' (stations N..0) or 'elimination' (seed 002: out at the limit).",
    "elimination_limit": "Total points at which a seat is out with game_end='elimination' (100).",
    "first_player": "Seat that starts the game; None = drawn from the env's seeded RNG.",
    "preset": "Name of the preset: from_preset, from_dict and raw_env(preset=...) start the other "
    "fields from its values; MexicanTrainConfig(preset=...) only records the name.",
}

#: Presets (docs/rules.md §1.8): name -> (source document, fields differing from the default).
PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "domino_cubano": ("seed 000 (Dominó Cubano (Tren Mexicano), main rules)", {}),
    "tren_mexicano": (
        "seed 002 (Tren Mexicano)",
        {
            "hand_size_rule": "table",
            "first_turn": "any",
            "doubles": "chain",
            "drawn_tile": "may_play",
            "blocked_round": "void",
            "double_blank_points": 10,
            "game_end": "elimination",
            "elimination_limit": 100,
        },
    ),
    "novelty": (
        "seed 003 (Dominó 6-9-12, Tren Mexicano section)",
        {"hand_size_rule": "table", "station_source": "highest_held"},
    ),
}


def from_preset(name: str = "domino_cubano", **overrides: Any) -> MexicanTrainConfig:
    """Config of preset ``name`` with ``overrides`` applied (explicit values win); the presets are
    docs/rules.md §1.8's (:data:`PRESETS`).

    Raises:
        ConfigError: unknown preset, unknown field or invalid value, or a ``preset=`` override
            other than ``name`` (the preset is the first argument).
    """
    if not _known(name, PRESETS):
        raise ConfigError("preset", name, f"one of {tuple(PRESETS)}")
    return _from_preset_values(MexicanTrainConfig, name, PRESETS[name][1], overrides)


def _from_preset_values(cls: type, name: str, preset: dict[str, Any], overrides: dict[str, Any]) -> Any:
    """``cls`` built from a preset's values with ``overrides`` applied. A preset value that the
    overrides make invalid (the Cuban preset's 10-tile hands with ``max_pip=6``) is named as the
    preset's, with the field to give. A ``preset`` among the overrides must be ``name`` itself
    (``from_preset(preset="novelty")`` built the default preset, the keyword ignored)."""
    if "preset" in overrides and overrides["preset"] != name:
        raise ConfigError("preset", overrides["preset"], f"{name!r}, the preset named first (or left to its "
                          f"default): give the preset first, e.g. {overrides['preset']!r} as the first argument")  # fmt: skip
    values = {**preset, **_checked_kwargs(cls, overrides), "preset": name}
    try:
        return cls(**values)
    except ConfigError as exc:
        if exc.field in preset and exc.field not in overrides:
            raise ConfigError(exc.field, exc.value, f"{exc.allowed} (the {name} preset's {exc.field} does not fit "
                              f"the other values given: give {exc.field} too)") from None  # fmt: skip
        raise


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _checked_kwargs(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    for key in data:
        if key not in names:
            raise ConfigError(key, data[key], f"a field of {cls.__name__}: {sorted(names)}")
    return dict(data)


def _check_int(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(name, value, f"an integer from {low} to {high}")


def _normalise_ints(config: Any) -> None:
    """Store numpy / other ``numbers.Integral`` values of the integer fields (annotated ``int`` or
    ``int | None``) as plain ``int``, and numpy booleans of the ``bool`` fields as ``bool`` (so
    configs compare, hash and serialise to JSON alike); anything else is left for validation.
    The fields are read from the dataclass, so a new field is normalised by its annotation."""
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if field.type in ("int", "int | None") and type(value) is not int and as_int(value) is not None:
            object.__setattr__(config, field.name, as_int(value))  # numpy integers, 0-d integer arrays
        elif field.type == "bool" and isinstance(value, np.bool_):  # numpy ints were taken, its booleans refused
            object.__setattr__(config, field.name, bool(value))


# ---------------------------------------------------------------------------- line games

LINE_MAX_PIPS = (6, 9, 12)

LINE_RULE_CHOICES: dict[str, tuple[str, ...]] = {"next_lead": ("next_seat", "winner")}


@dataclass(frozen=True)
class LineConfig(_ConfigMixin):
    """The rules of a line game: block, draw or Cuban (docs/rules.md §2; seeds 001, 003, 004).

    Attributes are documented in ``LINE_FIELD_DOCS``. Build one with :func:`line_from_preset`
    (or :meth:`from_dict`) to start from a preset: the constructor does not apply it.
    ``LineConfig(preset="cuban")`` is the block game's rules labelled ``cuban``, every field not
    given keeping the default above (see :class:`MexicanTrainConfig` for why), while the label
    names the game: render titles, an env's id, the game a PPO model is checked against;
    ``line_from_preset("cuban")`` is the Cuban rules.

    Raises:
        ConfigError: on any invalid field (``__post_init__``).
    """

    num_players: int = 4
    max_pip: int = 6
    hand_size: int = 7
    use_boneyard: bool = False
    teams: bool = False
    next_lead: str = "next_seat"
    annul_doubles: int | None = None
    target_score: int = 100
    preset: str = "block"

    def __post_init__(self) -> None:
        _normalise_ints(self)
        _check_int("num_players", self.num_players, 2, 4)
        if not _is_int(self.max_pip) or self.max_pip not in LINE_MAX_PIPS:
            raise ConfigError("max_pip", self.max_pip, f"one of {LINE_MAX_PIPS}")
        tiles = tile_count(self.max_pip)
        _check_int("hand_size", self.hand_size, 1, tiles // self.num_players)
        for name in ("use_boneyard", "teams"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(name, getattr(self, name), "True or False")
        if self.teams and self.num_players != 4:
            raise ConfigError("teams", self.teams, "True only with num_players=4 (seats 0+2 vs 1+3)")
        for name, allowed in LINE_RULE_CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ConfigError(name, getattr(self, name), f"one of {allowed}")
        if self.annul_doubles is not None:
            _check_int("annul_doubles", self.annul_doubles, 1, self.max_pip + 1)
        _check_int("target_score", self.target_score, 1, 10**7)
        if not _known(self.preset, LINE_PRESETS):
            raise ConfigError("preset", self.preset, f"one of {tuple(LINE_PRESETS)}")

    def team_of(self, seat: int) -> int:
        """Team of ``seat`` (seat parity: 0 for seats 0 and 2, 1 for seats 1 and 3; docs/rules.md
        §2.1) with teams on; the seat itself otherwise."""
        return seat % 2 if self.teams else seat



LINE_FIELD_DOCS: dict[str, str] = {
    "num_players": "Seats, 2 to 4.",
    "max_pip": "Double-N set: 6, 9 or 12.",
    "hand_size": "Tiles dealt to each seat (7; Cuban 10).",
    "use_boneyard": "True = draw game (undealt tiles are drawn one at a time); False = undealt "
    "tiles are out of play.",
    "teams": "Partnerships, 4 players only: seats 0+2 against 1+3.",
    "next_lead": "Who leads later rounds: 'next_seat' (seeds 003/004) or 'winner' (seed 001).",
    "annul_doubles": "Doubles dealt that let a player annul the round on its first turn (Cuban: "
    "5); None = no annulment.",
    "target_score": "Points that end a game (100; seed 003 prints 5,000 for the draw game).",
    "preset": "Name of the preset: line_from_preset, from_dict and raw_env(preset=...) start the "
    "other fields from its values; LineConfig(preset=...) only records the name.",
}

#: Line-game presets (docs/rules.md §2.2): name -> (source document, fields differing from the default).
LINE_PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "block": ("seed 004 (Reglas del Dominó Exprés)", {}),
    "draw": (
        "seed 003 (Dominó 6-9-12; its game target is printed as 5,000 points)",
        {"num_players": 2, "use_boneyard": True, "target_score": 5000},
    ),
    "cuban": (
        "seed 001 (Domino Cubano, Novelty)",
        {"max_pip": 9, "hand_size": 10, "teams": True, "next_lead": "winner", "annul_doubles": 5},
    ),
}


def line_from_preset(name: str = "block", **overrides: Any) -> LineConfig:
    """Line-game config of preset ``name`` (``"block"``, ``"draw"`` or ``"cuban"``: docs/rules.md
    §2.2) with ``overrides`` applied (explicit values win).

    Raises:
        ConfigError: unknown preset, unknown field or invalid value, or a ``preset=`` override
            other than ``name`` (the preset is the first argument).
    """
    if not _known(name, LINE_PRESETS):
        raise ConfigError("preset", name, f"one of {tuple(LINE_PRESETS)}")
    return _from_preset_values(LineConfig, name, LINE_PRESETS[name][1], overrides)


#: The env options that are not rules (``raw_env(...)`` keywords beside the rules): their values.
EPISODES = ("round", "game")
REWARDS = ("outcome", "points")
RENDER_MODES = ("human", "ansi", "rgb_array")
#: ``render()`` without a render mode: Gymnasium's own warning, as its envs give it
NO_RENDER_MODE = ("You are calling render method without specifying any render mode. You can specify the "
                  "render_mode at initialization, e.g. render_mode='ansi' or 'rgb_array'")  # fmt: skip
#: what ``render()`` shows before the first ``reset()`` (the text, or written on a blank picture)
NOT_RESET = "(reset() has not been called)"


def installed_render_modes(modes: tuple[str, ...] = RENDER_MODES) -> list[str]:
    """``modes`` less ``"rgb_array"`` where Pillow (the ``[render]`` extra) is not installed: the
    envs' ``metadata["render_modes"]``, which Gymnasium's ``check_env`` and PettingZoo's
    ``render_test`` make an env in, one by one. The mode is still accepted, and making an env in
    it without Pillow raises the ImportError that names the extra."""
    return [m for m in modes if m != "rgb_array" or _pillow_installed()]


def _pillow_installed() -> bool:
    try:
        return importlib.util.find_spec("PIL") is not None
    except (ImportError, ValueError):  # sys.modules["PIL"] = None: an import made to fail
        return False


def check_env_options(
    episode: Any = "round", reward: Any = "outcome", render_mode: Any = None, max_cycles: Any = 100_000,
    max_steps: Any = None,
) -> None:
    """Check the env options that are not rules (docs/envs.md), as ``raw_env`` takes them and a
    game record holds them.

    Raises:
        ConfigError: naming the option and its allowed values (``max_cycles`` an integer >= 1,
            ``max_steps`` None or an integer >= 1; numpy integers are accepted, bools not).
    """
    if episode not in EPISODES:
        raise ConfigError("episode", episode, f"one of {EPISODES}")
    if reward not in REWARDS:
        raise ConfigError("reward", reward, f"one of {REWARDS}")
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ConfigError("render_mode", render_mode, f"None or one of {RENDER_MODES}")
    if isinstance(max_cycles, bool) or not isinstance(max_cycles, (int, np.integer)) or max_cycles < 1:
        raise ConfigError("max_cycles", max_cycles, "a positive integer (cycles: turns per agent)")
    if max_steps is not None and (
        isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1
    ):
        raise ConfigError("max_steps", max_steps, "None or a positive integer (actions)")
