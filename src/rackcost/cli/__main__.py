"""``python -m rackcost.cli``: the ``rackcost`` command."""

from rackcost.cli.entry import main

if __name__ == "__main__":
    main()
