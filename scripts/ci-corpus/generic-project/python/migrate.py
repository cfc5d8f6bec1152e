"""Run by ../../generic.sh: a plain script (no test framework) that fails with a traceback."""

from settings import database_url


def main():
    print("migrating", database_url({"host": "db"}))


if __name__ == "__main__":
    main()
