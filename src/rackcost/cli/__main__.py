"""``python -m rackcost.cli``: the ``rackcost`` command."""

from rackcost.cli import main

if __name__ == "__main__":
    main()
