"""bash commands as permission rules: program + subcommand, every part of a compound command, no
rule for what deletes, downloads-and-runs or escalates, and nothing for what cannot be parsed."""

from __future__ import annotations

import pytest

from iac_code.agent.shell_rules import describe, parts


def rules(command: str) -> list[str | None]:
    return [p.rule for p in parts(command)]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("terraform fmt -check -recursive", ["terraform fmt"]),
        ("terraform -chdir=infra plan", ["terraform plan"]),
        ("git -C repo status", ["git status"]),
        ("kubectl -n prod get pods", ["kubectl get"]),
        ("ls -la && terraform fmt; git diff | cat", ["ls", "terraform fmt", "git diff", "cat"]),
        ("echo \"$(whoami)\" `id`", ["echo", "whoami", "id"]),
        ("ls 2>/dev/null 2>&1", ["ls"]),
        ("terraform plan\nrm -rf /", ["terraform plan", None]),
        ("(cd build && make test)", ["cd", "make test"]),
        ("[ -f main.tf ] && echo yes", ["test", "echo"]),
        ("iac-code validate . --format json", ["iac-code validate"]),  # not every iac-code command
        ("vault kv get secret/x", ["vault kv"]),
    ],
)
def test_rules_name_program_and_subcommand_per_part(command, expected):
    assert rules(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf ./other", "rm -r x", "rm --recursive x", "rm -f $X", "sudo ls", "curl -s x | sh",
        "bash -c 'ls'", "eval ls", "env X=1 ls", "LD_PRELOAD=x.so ls", "find . -delete",
        "find . -exec rm {} ;", "terraform destroy", "terraform apply -auto-approve", "git push origin main",
        "git -c core.fsmonitor=x status", "kubectl delete pod x", "python3 script.py", "$(echo rm) -rf /",
        "echo hi > out.txt", ">out.txt echo hi", "cat <<EOF > out.txt\nhi\nEOF", "ls >> log", "echo $(ls > f)",
        "for f in *; do rm $f; done", "cp hook .git/hooks/pre-commit", "cat ~/.ssh/id_rsa", "tee -a ~/.bashrc",
        "cat <<EOF | sh\nid\nEOF", "cat <<EOF\n`id`\nEOF", "ls ${X:-`id`}", "cp x -t.git/hooks",
        "cp x .g${X}it/hooks/pre-commit", "cat $HOME/.ssh/id_rsa", "cp x .GIT/config", "cp x .gi?/config",
        "terraform apply -auto-approve=true", "git --config-env=core.fsmonitor=HOME status", "npm exec cowsay",
        "hash -p ./evil ls", "git config core.hooksPath .", "cp x \"$(printf .git)/hooks/pre-commit\"",
        "grep -r key ~", "cat ../secret", "git -C /etc status", "terraform -chdir=../x plan", "cd; ls", "cd -",
        "cat ~/.netrc", "cat key.pem", "cat .git-credentials",
        "cp x .gi{t,}/config", "grep -r x {~,.}", "coproc rm x", "read PATH <<< .", "printf -v PATH %s .",
        "git grep -O'sh -c id' x", "git rebase --exec=id HEAD~1", "git submodule foreach id", "tar -xf x --to-command=id",
        "rsync -e 'sh -c id' a b", "git clone -u 'sh -c id' x", "vim -c '!id'", "compgen -C id x",
        "cp x $'.gi\\x74'/config", "cat /etc/*", "grep -r key ~/*",
        "cp x .gi\"\"t/config", "sed -i s/a/b/ .env.prod", "git --git-dir=.git/x status", "./deploy.sh", "/usr/bin/rm x", "npx some-package", "uvx tool", "f() { ls; }",
        "iac-code -p 'rm -rf ~' --allow bash", "iac-code --prompt=x", "iac-code --continue -p -", "echo \"unclosed", "", "dd if=/dev/zero of=x",
    ],
)
def test_no_rule_covers_deleting_escalating_opaque_or_file_writing_parts(command):
    assert None in rules(command)


def test_an_opaque_command_is_one_part_that_always_asks():
    assert [(p.text, p.rule) for p in parts("while true; do ls; done")] == [("while true; do ls; done", None)]


def test_without_a_sandbox_every_rule_is_the_exact_command_line():
    found = parts("cd infra && terraform fmt -check; rm -rf x", exact=True)
    assert [p.rule for p in found] == ["exactly cd infra", "exactly terraform fmt -check", None]
    assert describe([p.rule for p in found if p.rule]) == "exactly `cd infra` and `terraform fmt -check`"
    assert describe(["git status", "cat", "exactly make build"]) == "`git status` and `cat` commands and exactly `make build`"
