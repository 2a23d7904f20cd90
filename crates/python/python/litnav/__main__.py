"""The ``litnav`` command, carried by the package: ``litnav …`` (the script pip installs) and
``python -m litnav …`` run the same command as the native binary, in this process."""

import signal
import sys

from . import _litnav


def main() -> None:
    # The command is the whole process: Ctrl-C ends it at once, as it ends the native binary.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(_litnav.main(["litnav", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
