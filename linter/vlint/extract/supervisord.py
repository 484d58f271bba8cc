"""supervisord configurations: the vLLM launches in the ``command=`` of ``[program:x]``.

supervisord starts each program itself, without a shell: ``command=`` is expanded (``%%``,
``%(ENV_X)s``, ``%(program_name)s``: left unresolved) and split with ``shlex.split``
(Supervisor/supervisor ``supervisor/process.py``, ``get_execv_args``;
https://supervisord.org/configuration.html, "[program:x] Section Values", ``command``), so
``$PORT`` there is the four characters ``$PORT`` the program receives, not a variable.  A
command that runs a shell (``bash -c "vllm serve ..."``) is read as that shell's script.

``environment=KEY="val",KEY2="val"`` gives the program's environment, over the
``[supervisord]`` section's own ``environment=``, which every program inherits
(``supervisor/options.py``: ``ServerOptions.process_groups_from_parser`` and
``_processes_from_section``; the pairs are parsed by ``supervisor/datatypes.py``,
``dict_of_key_value_pairs``).  supervisord passes its own environment down as well, so a
variable not written here may still be set.

The file's lines, sections and options come from ``vlint.syntax.supervisord``, which reads them
as supervisord's ``RawConfigParser`` does, keeping every character's position.
"""

from __future__ import annotations

from vlint.extract import deployment
from vlint.extract.argv import recognise_all
from vlint.extract.nested import ExtractContext
from vlint.model import Deployment, EnvVar, Invocation
from vlint.syntax.supervisord import Section, expanded, key_value_pairs, read, split

KIND = "supervisord"
MAX_VARIABLES = 200  # names per ``environment=``; every launch carries them all
_PROGRAM = "program:"


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """Every vLLM launch among the programs; raises Unparsable where supervisord would refuse
    the file or a program's command or environment."""
    context = context or ExtractContext((KIND,))
    sections = read(text, context.locator(text))
    inherited: dict[str, EnvVar] = {}
    for section in sections:
        if section.name == "supervisord":
            inherited = _environment(section)
    found: list[Invocation] = []
    for section in sections:
        command = section.options.get("command")
        if not section.name.startswith(_PROGRAM) or command is None:
            continue
        around = Deployment(env={**inherited, **_environment(section)}, env_complete=False)
        words = split(expanded(command.value))
        for invocation in recognise_all(words, path=path, kind=KIND):
            found.append(deployment.enclosed(invocation, KIND, around))
    return found


def _environment(section: Section) -> dict[str, EnvVar]:
    option = section.options.get("environment")
    if option is None:
        return {}
    env: dict[str, EnvVar] = {}
    for name, value in key_value_pairs(expanded(option.value)):
        if name.text in env or len(env) < MAX_VARIABLES:
            env[name.text] = deployment.named(name, value)
    return env
