"""What makes two loaded agents the same agent, for the tests of the loader and its callers."""

import numpy as np

_SKIP = ("buffers", "_helpers", "_clock", "_rows", "_routes")  # scratch space rebuilt by every move


def _plain(value, depth):
    """value as something == compares: scalars as they are, arrays by dtype, shape and bytes,
    a generator by its state, tuples and lists item by item, an object by its attributes."""
    if value is None or isinstance(value, (bool, int, float, str, np.integer, np.floating)):
        return value
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, np.random.Generator):
        return repr(value.bit_generator.state)
    if isinstance(value, (tuple, list)) and depth < 3:
        return tuple(_plain(v, depth + 1) for v in value)
    if hasattr(value, "__dict__") and depth < 2:
        return (type(value).__name__, _fields(value, depth + 1))
    return type(value).__name__


def _fields(obj, depth):
    return {k: _plain(v, depth) for k, v in sorted(vars(obj).items()) if k not in _SKIP}


def agent_state(agent):
    """(class name, settings, generator state, evaluation arrays) of agent as one comparable
    value: two agents with equal states choose the same moves from the same positions."""
    return type(agent).__name__, _fields(agent, 0)
