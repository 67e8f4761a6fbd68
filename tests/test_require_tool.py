"""The `require_tool` helper of conftest.py: a test that needs a missing
program fails under CI and is skipped with its reason elsewhere."""

import pytest
from conftest import find_tool


def test_a_present_tool_gives_its_path():
    assert find_tool(("no-such-tool-ccbench", "sh"), install="-", ci=True).endswith("sh")


def test_a_missing_tool_fails_under_ci():
    with pytest.raises(pytest.fail.Exception, match="no-such-tool-ccbench.*apt-get install x.*CI=true"):
        find_tool(("no-such-tool-ccbench",), install="apt-get install x", ci=True)


def test_a_missing_tool_is_skipped_with_the_reason_elsewhere():
    with pytest.raises(pytest.skip.Exception, match="needs no-such-tool-ccbench or other-ccbench"):
        find_tool(("no-such-tool-ccbench", "other-ccbench"), install="-", ci=False)
