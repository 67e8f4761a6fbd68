"""Tests of ccbench.traces: Mahimahi trace loading and mean capacity."""

import pytest
from ccbench import traces
from ccbench.profiles import TRACE_DIR


def write(tmp_path, text, name="t.trace"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_a_trace_of_one_is_twelve_mbit(tmp_path):
    ops = traces.load_mahimahi(write(tmp_path, "1\n"))
    assert ops == [1]
    assert traces.mean_rate_bps(ops) == 12_032_000.0
    assert traces.mean_rate_bps(ops, bytes_per_opportunity=1500) == 12_000_000.0


def test_repeated_lines_are_several_opportunities(tmp_path):
    ops = traces.load_mahimahi(write(tmp_path, "0\n2\n2\n 5 \n"))
    assert ops == [0, 2, 2, 5]
    assert traces.mean_rate_bps(ops) == pytest.approx(4 * 1504 * 8 / 0.005)
    # No final newline is fine too.
    assert traces.load_mahimahi(write(tmp_path, "3\n4", "b")) == [3, 4]


@pytest.mark.parametrize(
    "text, words",
    [
        ("", ["empty"]),
        ("1\n\n2\n", [":2:", "empty line"]),
        ("1\nabc\n", [":2:", "not a timestamp", "non-negative integer"]),
        ("1\n-3\n", [":2:", "not a timestamp"]),
        ("1.5\n", [":1:", "not a timestamp"]),
        ("5\n3\n", [":2:", "3 comes after 5"]),
        ("0\n0\n", ["last timestamp is 0"]),
    ],
)
def test_bad_files_get_errors_naming_file_and_line(tmp_path, text, words):
    path = write(tmp_path, text)
    with pytest.raises(traces.TraceError) as e:
        traces.load_mahimahi(path)
    message = str(e.value)
    assert str(path) in message
    for w in words:
        assert w in message, message


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(traces.TraceError, match="no such trace file"):
        traces.load_mahimahi(tmp_path / "nope")
    p = tmp_path / "bin"
    p.write_bytes(b"1\n\xff\n")
    with pytest.raises(traces.TraceError, match="not a text trace"):
        traces.load_mahimahi(p)


def test_mean_rate_rejects_nonsense():
    with pytest.raises(traces.TraceError):
        traces.mean_rate_bps([])
    with pytest.raises(traces.TraceError):
        traces.mean_rate_bps([0])
    with pytest.raises(traces.TraceError):
        traces.mean_rate_bps([1], bytes_per_opportunity=0)


def test_a_real_cellular_trace():
    ops = traces.load_mahimahi(TRACE_DIR / "ATT-LTE-driving-2016.down")
    assert len(ops) == 45604 and ops[-1] == 120002
    # The traces' own README (4.56 Mbit/s) counts 1500 bytes per opportunity.
    assert traces.mean_rate_bps(ops, 1500) / 1e6 == pytest.approx(4.56, abs=0.005)
    assert traces.mean_rate_bps(ops) / 1e6 == pytest.approx(4.5725, abs=0.0001)
