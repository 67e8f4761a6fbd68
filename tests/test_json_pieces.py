"""ccbench.json_pieces: parts of a value handled whole in its JSON text."""

import json

from ccbench.json_pieces import Pieces


def test_parts_are_spliced_in_and_other_stand_ins_are_left_alone():
    mine, other = Pieces(), Pieces()
    foreign = other.stand_in("[9, 9]")  # another text's stand-in, as a string of this value
    value = {"a": mine.stand_in("[1, 2, 3]"), "b": [mine.stand_in('{"x": 1}'), foreign], "c": "plain"}
    text = mine.splice(json.dumps(value))
    assert json.loads(text) == {"a": [1, 2, 3], "b": [{"x": 1}, foreign], "c": "plain"}
    assert Pieces().splice('{"n": 1}') == '{"n": 1}'  # nothing to splice
