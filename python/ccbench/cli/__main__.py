"""`python -m ccbench.cli`: the `ccbench` command."""

from ccbench.cli import main

main()
