"""The command lines of container tools, read as their option parsers read them: which options
come before the image (or the pod name), which of them take a value, and where the value is.

Docker, Podman, nerdctl, kubectl and Apptainer/Singularity all parse options with spf13/pflag
(through cobra): ``--name value``, ``--name=value``, ``-n value``, ``-nvalue``, ``-n=value``,
combined short booleans (``-it``, ``-itd``; a value-taking letter ends the group and takes the
rest of it or the next word), a boolean's ``--rm=false``, ``--`` ending the options.  ``docker
run`` and its relatives stop at the first word that is not an option (the image: pflag's
``SetInterspersed(false)``); ``kubectl run`` reads options anywhere before ``--``.

The tables below are those tools' facts, transcribed from their documentation:

- ``docker [global] run|container run``: https://docs.docker.com/reference/cli/docker/container/run/
  (docker/cli ``docs/reference/commandline/container_run.md``, with the hidden ``--net``,
  ``--net-alias``, ``--dns-opt`` and the deprecated ``--kernel-memory`` of
  ``cli/command/container/opts.go``); globals: https://docs.docker.com/reference/cli/docker/
  (``docs/reference/commandline/docker.md``).
- ``podman [global] run``: podman-run(1) and podman(1),
  https://docs.podman.io/en/latest/markdown/podman-run.1.html (containers/podman
  ``docs/source/markdown/podman-run.1.md.in`` and its ``options/*.md``).
- ``nerdctl [global] run``: containerd/nerdctl ``docs/command-reference.md`` ("nerdctl run",
  "Global flags"), docker's options plus its own.
- ``kubectl run``: https://kubernetes.io/docs/reference/kubectl/generated/kubectl_run/
  (kubernetes/kubectl ``pkg/cmd/run/run.go``) and the global flags of ``kubectl options``.
- ``apptainer``/``singularity exec|run``:
  https://apptainer.org/docs/user/latest/cli/apptainer_exec.html
  (apptainer/apptainer ``cmd/internal/cli/action_flags.go`` and the globals of ``apptainer.go``).

Nothing here knows vLLM.  A word the table does not know, where an option must be, makes the
whole line unreadable (``None``): the image could be anywhere after it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from vlint.model import Span, Token

__all__ = [
    "APPTAINER", "APPTAINER_GLOBAL", "DOCKER_GLOBAL", "DOCKER_RUN", "KUBECTL_RUN", "NERDCTL_GLOBAL",
    "NERDCTL_RUN", "Option", "OptionTable", "Parsed", "PODMAN_GLOBAL", "PODMAN_RUN",
    "RUN_OPTIONS", "is_option", "parse",
]


@dataclass(frozen=True)
class OptionTable:
    """One command's options, by every spelling (``-e`` and ``--env`` both): ``valued`` take a
    value, ``flags`` do not (a ``--flag=false`` is still read), ``optional`` take one only after
    ``=`` (pflag's ``NoOptDefVal``); ``canonical`` maps a short spelling to its long one."""

    valued: frozenset[str]
    flags: frozenset[str]
    optional: frozenset[str] = frozenset()
    canonical: tuple[tuple[str, str], ...] = ()

    def name(self, written: str) -> str:
        """The long spelling of ``written`` (``-e`` -> ``--env``)."""
        return dict(self.canonical).get(written, written)


@dataclass(frozen=True)
class Option:
    """One option as written: its long name, the word that holds it and where in that word its
    name is (``start``/``end``), and its value (None for a flag without ``=value``)."""

    name: str
    word: Token
    start: int
    end: int
    value: Token | None

    @property
    def span(self) -> Span:
        """Where the option's name is written (made when asked: most are never reported)."""
        return self.word.sub_span(self.start, self.end)


@dataclass(frozen=True)
class Parsed:
    """The options, and the index of the first word after them (the image, or the end), and
    for an interspersed command the positional words before ``--`` and the index after it."""

    options: tuple[Option, ...]
    stop: int
    positionals: tuple[int, ...] = ()
    dash: int | None = None


def _table(valued: str, flags: str, short: str = "", optional: str = "") -> OptionTable:
    """A table from space-separated long names; ``short`` pairs ``x=long`` (``e=env``)."""
    pairs = tuple((f"-{s}", f"--{long}") for s, long in (p.split("=") for p in short.split()))
    valued_names = {f"--{n}" for n in valued.split()}
    flag_names = {f"--{n}" for n in flags.split()}
    for letter, long in pairs:
        (valued_names if long in valued_names else flag_names).add(letter)
    return OptionTable(frozenset(valued_names), frozenset(flag_names),
                       frozenset(f"--{n}" for n in optional.split()), pairs)


_DOCKER_RUN_VALUED = (
    "add-host annotation attach blkio-weight blkio-weight-device cap-add cap-drop "
    "cgroup-parent cgroupns cidfile cpu-count cpu-percent cpu-period cpu-quota cpu-rt-period "
    "cpu-rt-runtime cpu-shares cpus cpuset-cpus cpuset-mems detach-keys device "
    "device-cgroup-rule device-read-bps device-read-iops device-write-bps device-write-iops dns "
    "dns-opt dns-option dns-search domainname entrypoint env env-file expose gpus group-add "
    "health-cmd health-interval health-retries health-start-interval health-start-period "
    "health-timeout hostname io-maxbandwidth io-maxiops ip ip6 ipc isolation kernel-memory "
    "label label-file link link-local-ip log-driver log-opt mac-address memory "
    "memory-reservation memory-swap memory-swappiness mount name net net-alias network "
    "network-alias oom-score-adj pid pids-limit platform publish pull restart runtime "
    "security-opt shm-size stop-signal stop-timeout storage-opt sysctl tmpfs ulimit user userns "
    "uts volume volume-driver volumes-from workdir"
)
_DOCKER_RUN_FLAGS = (
    "detach disable-content-trust help init interactive no-healthcheck oom-kill-disable "
    "privileged publish-all quiet read-only rm sig-proxy tty use-api-socket"
)
_DOCKER_RUN_SHORT = (
    "a=attach c=cpu-shares d=detach e=env h=hostname i=interactive l=label m=memory "
    "p=publish P=publish-all q=quiet t=tty u=user v=volume w=workdir"
)
DOCKER_RUN = _table(_DOCKER_RUN_VALUED, _DOCKER_RUN_FLAGS, _DOCKER_RUN_SHORT)
DOCKER_GLOBAL = _table(
    valued="config context host log-level tlscacert tlscert tlskey",
    flags="debug tls tlsverify",
    short="c=context D=debug H=host l=log-level",
)

PODMAN_RUN = _table(
    valued="add-host annotation arch attach authfile blkio-weight blkio-weight-device cap-add "
    "cap-drop cert-dir cgroup-conf cgroup-parent cgroupns cgroups chrootdirs cidfile "
    "conmon-pidfile cpu-period cpu-quota cpu-rt-period cpu-rt-runtime cpu-shares cpus "
    "cpuset-cpus cpuset-mems creds decryption-key detach-keys device device-cgroup-rule "
    "device-read-bps device-read-iops device-write-bps device-write-iops dns dns-option "
    "dns-search entrypoint env env-file env-merge expose gidmap gpus group-add group-entry "
    "health-cmd health-interval health-log-destination health-max-log-count "
    "health-max-log-size health-on-failure health-retries health-start-period "
    "health-startup-cmd health-startup-interval health-startup-retries health-startup-success "
    "health-startup-timeout health-timeout hostname hosts-file hostuser image-volume init-path "
    "ip ip6 ipc label label-file link-local-ip log-driver log-opt mac-address memory "
    "memory-reservation memory-swap memory-swappiness mount name net network network-alias "
    "oom-score-adj os passwd-entry personality pid pidfile pids-limit platform pod "
    "pod-id-file preserve-fd preserve-fds publish pull rdt-class requires restart retry "
    "retry-delay sdnotify seccomp-policy secret security-opt shm-size shm-size-systemd "
    "stop-signal stop-timeout subgidname subuidname sysctl systemd timeout tmpfs tz uidmap "
    "ulimit umask unsetenv user userns uts variant volume volumes-from workdir",
    flags="detach disable-content-trust env-host help http-proxy init interactive "
    "no-healthcheck no-hostname no-hosts oom-kill-disable passwd privileged publish-all quiet "
    "read-only read-only-tmpfs replace rm rmi rootfs sig-proxy tls-verify tty unsetenv-all",
    short="a=attach c=cpu-shares d=detach e=env h=hostname i=interactive l=label m=memory "
    "p=publish P=publish-all q=quiet t=tty u=user v=volume w=workdir",
)
PODMAN_GLOBAL = _table(
    valued="cdi-spec-dir cgroup-manager config conmon connection events-backend hooks-dir "
    "identity imagestore log-level module network-config-dir out root runroot runtime "
    "runtime-flag ssh storage-driver storage-opt tls-ca tls-cert tls-details tls-key tmpdir "
    "url volumepath",
    flags="help remote syslog transient-store version",
    short="c=connection h=help r=remote v=version",
)

NERDCTL_RUN = _table(
    _DOCKER_RUN_VALUED + " cgroup-conf cosign-key cosign-certificate-identity "
    "cosign-certificate-identity-regexp cosign-certificate-oidc-issuer "
    "cosign-certificate-oidc-issuer-regexp init-binary ipfs-address pidfile rdt-class systemd "
    "umask verify",
    _DOCKER_RUN_FLAGS + " rootfs",
    _DOCKER_RUN_SHORT,
)
NERDCTL_GLOBAL = _table(
    valued="address bridge-ip cgroup-manager cni-netconfpath cni-path data-root "
    "host-gateway-ip hosts-dir namespace snapshotter storage-driver userns-remap",
    flags="debug debug-full experimental insecure-registry kube-hide-dupe selinux-enabled",
    short="a=address H=address n=namespace",
)

# kubectl run's own options (run.go, with the print, delete, record and apply-annotation
# flags it adds) and kubectl's global options; ``--dry-run`` and ``--cascade`` take a value
# only after ``=``.
KUBECTL_RUN = _table(
    valued="annotations image image-pull-policy env port labels restart detach-keys "
    "field-manager overrides override-type output template filename kustomize grace-period "
    "timeout pod-running-timeout as as-group as-uid cache-dir certificate-authority "
    "client-certificate client-key cluster context kubeconfig namespace password profile "
    "profile-output request-timeout server tls-server-name token user username v vmodule "
    "log-flush-frequency",
    flags="rm stdin tty attach leave-stdin-open command expose quiet privileged force wait "
    "recursive record save-config allow-missing-template-keys show-managed-fields "
    "insecure-skip-tls-verify match-server-version warnings-as-errors disable-compression",
    short="l=labels i=stdin t=tty q=quiet o=output f=filename k=kustomize R=recursive "
    "n=namespace s=server v=v",
    optional="dry-run cascade",
)

# ``exec``/``run`` options (action_flags.go, with the registry-login flags they share) and the
# global options before the command (apptainer.go); Singularity's are the same.
APPTAINER = _table(
    valued="app bind mount home overlay scratch workdir shell cwd pwd hostname network "
    "network-args dns security apply-cgroups containlibs fusemount tmpdir no-mount add-caps "
    "drop-caps env no-env env-file dmtcp-launch dmtcp-restart blkio-weight blkio-weight-device "
    "cpu-shares cpus cpuset-cpus cpuset-mems memory memory-reservation memory-swap pids-limit "
    "runscript-timeout netns-path device cdi-dirs docker-username docker-password docker-host "
    "authfile pem-path",
    flags="disable-cache boot fakeroot cleanenv compat contain containall nv nvccli compat32 "
    "rocm writable writable-tmpfs no-home no-init no-nv no-rocm pid no-pid ipc net uts userns "
    "keep-privs no-privs allow-setuid no-umask no-eval oom-kill-disable unsquash "
    "ignore-subuid ignore-fakeroot-command ignore-userns underlay sharens intel-hpu "
    "docker-login passphrase no-https nohttps help",
    short="B=bind H=home o=overlay S=scratch W=workdir s=shell f=fakeroot e=cleanenv "
    "c=contain C=containall w=writable p=pid i=ipc n=net u=userns h=help",
)
APPTAINER_GLOBAL = _table(
    valued="config",
    flags="debug nocolor silent quiet verbose build-config help version",
    short="d=debug s=silent q=quiet v=verbose c=config h=help",
)


def parse(
    words: Sequence[Token], start: int, table: OptionTable, *, interspersed: bool = False
) -> Parsed | None:
    """The options of ``words[start:]`` as pflag reads them; None where a word in an option's
    place is not in ``table`` (or an option lacks its value).

    Without ``interspersed`` the options end at the first word that is not one (``stop``);
    with it, positional words are collected up to ``--`` (``dash`` is the index after it).
    """
    options: list[Option] = []
    positionals: list[int] = []
    index = start
    while index < len(words):
        word = words[index]
        text = word.text
        if text == "--":
            if interspersed:
                return Parsed(tuple(options), len(words), tuple(positionals), index + 1)
            return Parsed(tuple(options), index + 1)
        if not text.startswith("-") or text == "-":
            if not interspersed:
                return Parsed(tuple(options), index)
            positionals.append(index)
            index += 1
            continue
        if text.startswith("--"):
            consumed = _long(words, index, table, options)
        else:
            consumed = _short(words, index, table, options)
        if consumed is None:
            return None
        index += consumed
    return Parsed(tuple(options), len(words), tuple(positionals), None)


def _long(
    words: Sequence[Token], index: int, table: OptionTable, options: list[Option]
) -> int | None:
    word = words[index]
    name, equals, _ = word.text.partition("=")
    size = len(name)
    if equals:
        if name not in table.valued and name not in table.flags and name not in table.optional:
            return None
        options.append(Option(table.name(name), word, 0, size, word.slice(size + 1)))
        return 1
    if name in table.flags or name in table.optional:
        options.append(Option(table.name(name), word, 0, size, None))
        return 1
    if name in table.valued and index + 1 < len(words):
        options.append(Option(table.name(name), word, 0, size, words[index + 1]))
        return 2
    return None


def _short(
    words: Sequence[Token], index: int, table: OptionTable, options: list[Option]
) -> int | None:
    word = words[index]
    text = word.text
    for offset in range(1, len(text)):
        letter = f"-{text[offset]}"
        name = table.name(letter)
        if letter in table.flags:
            if text[offset + 1 : offset + 2] == "=":
                options.append(Option(name, word, offset, offset + 1, word.slice(offset + 2)))
                return 1
            options.append(Option(name, word, offset, offset + 1, None))
            continue
        if letter not in table.valued:
            return None
        rest = offset + 1
        if text[rest : rest + 1] == "=":
            rest += 1
        if rest < len(text):
            options.append(Option(name, word, offset, offset + 1, word.slice(rest)))
            return 1
        if index + 1 < len(words):
            options.append(Option(name, word, offset, offset + 1, words[index + 1]))
            return 2
        return None
    return 1


# Each tool's options for the command that takes an image (``run``, ``exec``).
RUN_OPTIONS: Mapping[str, OptionTable] = {
    "docker": DOCKER_RUN,
    "podman": PODMAN_RUN,
    "nerdctl": NERDCTL_RUN,
    "kubectl": KUBECTL_RUN,
    "apptainer": APPTAINER,
    "singularity": APPTAINER,
}


def is_option(table: OptionTable, written: str) -> bool:
    """Whether ``written`` (an option's name, without ``=value``) is one of ``table``'s: a
    long or short spelling, or a group of short ones (``-it``, ``-dp``) as pflag reads it."""
    if written in table.valued or written in table.flags or written in table.optional:
        return True
    if written.startswith("--") or len(written) < 3 or not written.startswith("-"):
        return False
    for offset in range(1, len(written)):
        letter = f"-{written[offset]}"
        if letter in table.valued:
            return True  # the rest of the group is its value
        if letter not in table.flags:
            return False
    return True
