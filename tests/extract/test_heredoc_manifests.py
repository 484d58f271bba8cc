"""Kubernetes manifests applied from a shell here-document (``kubectl apply -f - <<EOF``), in
shell scripts and in Markdown shell fences, each token at its exact place in the file."""

from __future__ import annotations

import pytest

from vlint.extract import markdown, shell
from vlint.model import Invocation, Pos, Span, Token
from vlint.syntax.heredoc import MAX_HEREDOCS, heredocs

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: vllm
spec:
  containers:
    - name: server
      image: vllm/vllm-openai:v0.9.0
      args: ["--model", "org/m", "--max-num-seqs", "{seqs}"]
"""


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


def written(text: str, line: int, needle: str) -> Span:
    """Where ``needle`` is written on ``line`` of ``text`` (its first occurrence there)."""
    column = text.split("\n")[line - 1].index(needle) + 1
    return Span(Pos(line, column), Pos(line, column + len(needle)))


def script(opening: str, body: str = POD, closing: str = "EOF", seqs: str = "8") -> str:
    return f"{opening}\n{body.format(seqs=seqs)}{closing}\n"


@pytest.mark.parametrize("opening", [
    "kubectl apply -f - <<EOF",
    "kubectl apply -f - <<'EOF'",
    'kubectl apply -f - << "EOF"',
    "kubectl create -f - <<EOF",
    "kubectl -n serving apply -f- <<EOF",
    "kubectl apply --filename=- <<EOF",
    "sudo microk8s kubectl apply -f - <<EOF",
    "oc replace -f - <<\\EOF",
    "cat <<EOF | kubectl apply -f -",
    "cat <<'EOF' | tee applied.yaml | kubectl apply -f -",
])
def test_applied_heredoc_is_read_as_a_manifest(opening: str) -> None:
    text = script(opening)
    (found,) = shell.extract("deploy.sh", text)
    assert found.origin == ("shell", "kubernetes")
    # Line 10 is the body's ``args:`` line.
    assert arg(found, "--max-num-seqs").span == written(text, 10, "--max-num-seqs")
    assert arg(found, "8").span == written(text, 10, "8")
    assert found.deployment.image is not None
    assert found.deployment.image.span == written(text, 9, "vllm/vllm-openai:v0.9.0")


def test_tab_stripped_heredoc_keeps_positions() -> None:
    body = "".join("\t" + line + "\n" for line in POD.format(seqs="8").splitlines())
    text = "if true; then\n\tkubectl apply -f - <<-EOF\n" + body + "\tEOF\nfi\n"
    (found,) = shell.extract("deploy.sh", text)
    assert arg(found, "--max-num-seqs").span == written(text, 11, "--max-num-seqs")
    assert written(text, 11, "--max-num-seqs").start.column == 36


def test_unquoted_heredoc_expansions_are_unresolved() -> None:
    text = script("kubectl apply -f - <<EOF", seqs="${SEQS}")
    (found,) = shell.extract("deploy.sh", text)
    value = found.args[-1]
    assert value.text == "${SEQS}" and not value.literal
    assert value.span == written(text, 10, "${SEQS}")
    assert arg(found, "--max-num-seqs").literal


def test_quoted_heredoc_is_literal() -> None:
    text = script("kubectl apply -f - <<'EOF'", seqs="${SEQS}")
    (found,) = shell.extract("deploy.sh", text)
    assert found.args[-1].text == "${SEQS}" and found.args[-1].literal


def test_envsubst_makes_variables_unresolved_even_in_a_quoted_heredoc() -> None:
    text = script("cat <<'EOF' | envsubst | kubectl apply -f -", seqs="$SEQS")
    (found,) = shell.extract("deploy.sh", text)
    assert not found.args[-1].literal


def test_escaped_dollar_in_unquoted_heredoc_is_a_kubernetes_reference() -> None:
    body = POD.replace('"{seqs}"]', '"\\$(SEQS)"]\n      env:\n        - name: SEQS\n'
                       '          value: "16"')
    text = script("kubectl apply -f - <<EOF", body=body)
    (found,) = shell.extract("deploy.sh", text)
    value = found.args[-1]
    # The shell turns ``\\$`` into ``$``; the kubelet then expands ``$(SEQS)`` from ``env:``,
    # whose value sits at the reference (the ``$`` after the backslash).
    assert value.text == "16" and value.literal
    assert value.span.start == written(text, 10, "$(SEQS)").start


@pytest.mark.parametrize("opening", [
    "cat > pod.yaml <<EOF",  # written to a file, not applied here
    "kubectl apply -f pod.yaml <<EOF",  # the heredoc is not what kubectl reads
    "kubectl delete -f - <<EOF",
    "cat <<EOF | sed s/m/n/ | kubectl apply -f -",  # changed on the way, as sed decides
    "cat <<EOF; kubectl apply -f -",
])
def test_heredoc_not_applied_as_written_is_not_read(opening: str) -> None:
    assert shell.extract("deploy.sh", script(opening)) == []


def test_heredoc_that_is_not_yaml_is_skipped() -> None:
    body = "spec: [unclosed\n  containers:\n"
    assert shell.extract("deploy.sh", script("kubectl apply -f - <<EOF", body=body)) == []


def test_heredoc_manifest_inside_a_markdown_fence() -> None:
    text = "Deploy:\n\n  ```sh\n  " + script("kubectl apply -f - <<'EOF'").replace(
        "\n", "\n  "
    ).rstrip(" ") + "  ```\n"
    (found,) = markdown.extract("README.md", text)
    assert found.origin == ("markdown", "shell", "kubernetes")
    assert arg(found, "--max-num-seqs").span == written(text, 13, "--max-num-seqs")


def test_container_script_in_the_manifest_is_read() -> None:
    body = POD.replace(
        'args: ["--model", "org/m", "--max-num-seqs", "{seqs}"]',
        'command: ["sh", "-c"]\n      args:\n        - |\n'
        "          vllm serve org/m \\\n            --swap-space 4",
    )
    text = script("kubectl apply -f - <<'EOF'", body=body)
    (found,) = shell.extract("deploy.sh", text)
    assert found.origin == ("shell", "kubernetes", "shell")
    assert arg(found, "--swap-space").span == written(text, 14, "--swap-space")


def test_heredoc_bodies_are_positioned_and_bounded() -> None:
    text = "cat <<-EOF\n\ta: \\$X \\\n\t  ${Y}\n\tEOF\n"
    (body,) = heredocs(text)
    assert body.text == "a: $X   ${Y}\n"
    assert all(text[offset] == char for offset, char in zip(body.offsets, body.text))
    assert [body.text[start:end] for start, end in body.expanded] == ["${Y}"]
    many = "".join(f"cat <<E{n}\nx\nE{n}\n" for n in range(MAX_HEREDOCS + 5))
    assert len(heredocs(many)) == MAX_HEREDOCS


def test_unclosed_expansion_runs_to_the_end_of_the_body() -> None:
    text = "kubectl apply -f - <<EOF\n" + "a: `\n" * 20_001 + "EOF\n"
    (body,) = heredocs(text)
    assert len(body.expanded) == 10_001
    assert body.expanded[-1] == (body.text.rindex("`"), len(body.text))


def test_document_placeholders_in_a_quoted_heredoc_are_unresolved() -> None:
    text = "```bash\n" + script("kubectl apply -f - <<'EOF'", seqs="<max-seqs>") + "```\n"
    (found,) = markdown.extract("README.md", text)
    value = found.args[-1]
    assert not value.literal
    assert value.span == written(text, 11, "<max-seqs>")
    assert arg(found, "org/m").literal
