"""Where a person's files are: the home directory an environment names."""

import os


def home_of(env):
    """The HOME of `env`, else the user's home directory from the password database."""
    home = env.get("HOME")
    if not home:
        import pwd  # only without HOME, which a person's shell always sets

        home = pwd.getpwuid(os.getuid()).pw_dir
    return home
