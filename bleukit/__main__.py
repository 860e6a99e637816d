"""`python -m bleukit`: the command line (the same as the installed `bleu` command)."""

from bleukit.cli.main import run_as_command

if __name__ == "__main__":
    run_as_command()
