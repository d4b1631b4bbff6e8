"""The test suite's one command-line switch, registered here at the root so that pytest
knows it before it reads the rest of the command line (`pytest --target src`)."""

import os


def pytest_addoption(parser):
    parser.addoption(
        "--target",
        choices=("src", "pyz", "both"),
        default=os.environ.get("POSTBAG_TEST_TARGET", "both"),
        help="what the CLI tests run: the source tree, the built postbag.pyz, or both",
    )
