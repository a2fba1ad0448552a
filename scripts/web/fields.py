"""The fields of the web board's requests: each checked, a bad one answered with HTTP 400."""

from __future__ import annotations

import re
from types import SimpleNamespace

from boardgym.agents.registry import parse_option
from boardgym.envs import backgammon_checks, backgammon_ids
from boardgym.kernels.backgammon.match import MAX_MATCH_LENGTH


class BadRequest(ValueError):
    """A request the server refuses (HTTP status, message)."""

    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status


_KIND_NAMES = {
    int: "an integer",
    str: "a string",
    bool: "true or false",
    list: "a list",
    (int, float): "a number",
    (list, str): "a list or a string",
}


def get(body, key, kind, default=None, choices=None):
    """body[key] checked to be of kind (and in choices); default if absent or null."""
    value = body.get(key, default)
    if value is None:
        return default
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        name = _KIND_NAMES.get(kind, "a value of another type")
        raise BadRequest(f"{key!r} must be {name}, got {type(value).__name__}")
    if choices is not None and value not in choices:
        raise BadRequest(f"{key!r} must be one of {', '.join(map(str, choices))}, got {value!r}")
    return value


def _checked_limits(depth, limit, where):
    if depth is not None and not 1 <= depth <= 64:
        raise BadRequest(f"{where}'depth' must be 1..64, got {depth}")
    if limit is not None and not 0 < limit <= 600:
        raise BadRequest(f"{where}'time_limit' must be in (0, 600] seconds, got {limit}")


def _option_items(value, where):
    """The agent's other options as 'key=value' strings (the syntax of boardgym play's
    --agent-option): a string of them separated by commas or spaces, or a list of strings."""
    if value is None:
        return []
    if isinstance(value, str):
        items = [w for w in re.split(r"[,\s]+", value.strip()) if w]
    elif isinstance(value, list) and all(isinstance(w, str) for w in value):
        items = [w.strip() for w in value if w.strip()]
    else:
        raise BadRequest(
            f"{where}'options' must be a string of key=value or a list of them, "
            f"got {type(value).__name__}"
        )
    if len(items) > 32:
        raise BadRequest(f"{where}'options': at most 32 options, got {len(items)}")
    out = []
    for item in items:
        val = item.partition("=")[2]
        try:
            key = parse_option(item)[0]  # the registry's syntax, as --agent-option
        except ValueError:
            key = None
        if key is None or not val.strip():
            raise BadRequest(
                f"{where}'options': expected key=value such as tt_bits=20, got {item!r}"
            )
        if key in ("depth", "time_limit"):
            raise BadRequest(f"{where}'options': give {key} in its own field, not as an option")
        out.append(f"{key}={val}")
    return out


def options(body, game, agent, spec=None, where=""):
    """Settings-like object for agents/arena/sessions (load_agent and the game classes): the
    game's fields from body, the agent's (depth, time_limit, options) from spec (default:
    body)."""
    spec = body if spec is None else spec
    try:
        depth = get(spec, "depth", int)
        limit = get(spec, "time_limit", (int, float))
    except BadRequest as e:
        raise BadRequest(f"{where}{e}") from None
    _checked_limits(depth, limit, where)
    items = _option_items(spec.get("options"), where)
    fen = get(body, "fen", str) or None
    pid = get(body, "position_id", str) or None
    if fen is not None and len(fen) > 1000 or pid is not None and len(pid) > 100:
        raise BadRequest("'fen' or 'position_id' is far too long to be a position")
    if fen is not None and game != "draughts":
        raise BadRequest("'fen' is a draughts position; for backgammon give 'position_id'")
    dice = get(body, "dice", (list, str)) or None
    if (pid is not None or body.get("cube") or dice is not None) and game != "backgammon":
        raise BadRequest("'position_id', 'dice' and 'cube' are for backgammon")
    if pid is not None and game == "backgammon":
        try:
            backgammon_checks.check_playable(backgammon_ids.position_from_id(pid.strip()))
        except (TypeError, ValueError) as e:
            raise BadRequest(f"'position_id': {e}") from None
    if dice is not None:
        try:
            dice = backgammon_checks.parse_dice(dice)
        except ValueError:
            raise BadRequest(
                f"'dice' must be two dice 1..6 such as [6, 4] or \"6-4\" (the first "
                f"roll), got {str(body.get('dice'))[:40]!r}"
            ) from None
    match = get(body, "match", int, 0)
    if match and game != "backgammon":
        raise BadRequest("'match' is for backgammon (a match to N points)")
    if not 0 <= match <= MAX_MATCH_LENGTH:
        raise BadRequest(
            f"'match' must be 0 (money play) or 1..{MAX_MATCH_LENGTH} points, got {match}"
        )
    if match and pid is not None:
        raise BadRequest(
            "'match' plays from the standard start (a match file has no set-up position): "
            "leave out 'position_id'"
        )
    score, crawford = start_score(body, match)
    return SimpleNamespace(
        game=game,
        agent=agent,
        seed=get(body, "seed", int, 0),
        fen=fen,
        position_id=pid.strip() if pid else None,
        dice=None if dice is None else f"{dice[0]}-{dice[1]}",
        cube=get(body, "cube", bool, False) or match > 0,
        match=match,
        score=score,
        crawford=crawford,
        depth=depth,
        time_limit=None if limit is None else float(limit),
        agent_option=items,
    )


def start_score(body, match):
    """(score, crawford) a match starts from (MP.7): body's 'score' [player_0's, player_1's]
    and 'crawford' (the first game is the Crawford game; default false), checked by the env's
    own match state (backgammon_checks.new_match, then recordable_start: a score of N - 1
    without the Crawford game, post-Crawford, is refused, as a match file cannot record it);
    (None, None) for the usual 0-0."""
    given, crawford = body.get("score"), get(body, "crawford", bool, False)
    if given is None and not crawford:
        return None, None
    if not match:
        raise BadRequest("'score' and 'crawford' start a match from a score: give 'match' too")
    if given is None:
        score = (0, 0)
    elif not isinstance(given, list) or len(given) != 2 or any(type(s) is not int for s in given):
        raise BadRequest(
            "'score' must be two integers [player_0's, player_1's] below the match length, "
            f"got {given!r:.40}"
        )
    else:
        score = (given[0], given[1])
    try:
        backgammon_checks.new_match(match, score)
    except ValueError as e:
        raise BadRequest(f"'score': {e}") from None
    try:
        backgammon_checks.recordable_start(match, score, crawford)
    except ValueError as e:
        raise BadRequest(f"'crawford': {e}") from None
    return score, crawford


def watch_settings(body):
    """The two agents' settings of a watched game: body's 'agent_settings' (two objects with
    depth, time_limit, options; null for none) over body's own depth, time_limit, options."""
    per = get(body, "agent_settings", list, [None, None])
    if len(per) != 2 or not all(x is None or isinstance(x, dict) for x in per):
        raise BadRequest(
            "'agent_settings' must be two objects (depth, time_limit, options) or null"
        )
    base = {k: body[k] for k in ("depth", "time_limit", "options") if body.get(k) is not None}
    return [{**base, **{k: v for k, v in (x or {}).items() if v is not None}} for x in per]
