"""ccbench.inputs.plain: a dict scenario or campaign as plain Python values,
whatever a notebook hands over, without walking a trace number by number
and without sharing anything the caller could change (hypothesis)."""

from collections.abc import Mapping

import numpy as np
from ccbench import traces
from ccbench.inputs import plain
from hypothesis import given
from hypothesis import strategies as st

NUMPY_SCALARS = st.one_of(
    st.integers(-(2**31), 2**31 - 1).map(np.int64),
    st.integers(0, 255).map(np.uint8),
    st.floats(-1e6, 1e6, width=32).map(np.float32),
    st.floats(allow_nan=False).map(np.float64),  # a float subclass: still converted
    st.booleans().map(np.bool_),
)
LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5), NUMPY_SCALARS
)
NUMBER_LISTS = st.lists(st.one_of(st.integers(), st.floats(allow_nan=False), NUMPY_SCALARS), max_size=20)
VALUES = st.recursive(
    st.one_of(LEAVES, NUMBER_LISTS, NUMBER_LISTS.map(np.array), st.lists(st.integers(0, 99)).map(traces.Opportunities)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=3), inner, max_size=4),
    ),
    max_leaves=30,
)


def reference(v):
    """plain, written the slow and obvious way."""
    if isinstance(v, Mapping):
        return {k: reference(x) for k, x in v.items()}
    if isinstance(v, traces.Opportunities):
        return v
    if isinstance(v, (list, tuple)):
        return [reference(x) for x in v]
    if type(v).__module__ == "numpy" and hasattr(v, "tolist"):
        return v.tolist()
    return v


def typed(v):
    """v with every value paired with its type, so == also compares types (np.float32(0.5) == 0.5)."""
    if isinstance(v, dict):
        return {k: typed(x) for k, x in v.items()}
    if isinstance(v, list):
        return (type(v), [typed(x) for x in v])
    return (type(v), v)


def containers(v, found=None) -> dict[int, object]:
    """Every dict and list inside v, by id (an Opportunities is never changed: left out)."""
    found = {} if found is None else found
    if isinstance(v, (dict, list)) and not isinstance(v, traces.Opportunities):
        found[id(v)] = v
        for x in v.values() if isinstance(v, dict) else v:
            containers(x, found)
    return found


@given(VALUES)
def test_plain_is_the_obvious_conversion_and_shares_nothing_changeable(value):
    out = plain({"x": value})["x"]
    expected = reference(value)
    assert typed(out) == typed(expected)
    assert not set(containers(out)) & set(containers(value))


def test_a_trace_is_kept_whole_and_numpy_inside_a_number_list_is_converted():
    o = traces.Opportunities([1, 2, 3])
    assert plain({"t": o})["t"] is o
    out = plain({"l": [1, np.int64(2), 3.5, np.float64(4.5)]})["l"]
    assert out == [1, 2, 3.5, 4.5] and [type(x) for x in out] == [int, int, float, float]
    assert type(plain({"l": [np.float64(4.5)]})["l"][0]) is float  # a float subclass, converted all the same
