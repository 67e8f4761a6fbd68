"""The kernel-mode emulator as a program: `python -m ccbench.emulate.ccemu`.

The emulator (crates/ccemu) is built into the extension module, so an
installed ccbench runs the emulator of its own build with no second build
step; kernel mode starts it in a process of its own with this module (see
runner.emulator_command). Its arguments and its protocol on stdin/stdout are
the `ccemu` binary's (crates/ccemu/src/lib.rs).
"""

import sys


def main() -> int:
    from ccbench import _ccsim

    return _ccsim.emulator_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
