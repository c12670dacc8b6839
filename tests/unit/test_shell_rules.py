"""bash commands as permission rules: program + subcommand, every part of a compound command, no
rule for what deletes, downloads-and-runs or escalates, and nothing for what cannot be parsed."""

from __future__ import annotations

import os

import pytest

from iac_code.agent.shell_rules import describe, parts


def rules(command: str) -> list[str | None]:
    return [p.rule for p in parts(command)]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("terraform fmt -check -recursive", ["terraform fmt"]),
        ("terraform -chdir=infra validate", ["terraform validate"]),
        ("terraform -chdir=infra plan", ["exactly terraform -chdir=infra plan"]),  # not on the safe list
        ("git -C repo status", ["git status"]),
        ("kubectl -n prod get pods", ["kubectl get"]),
        ("ls -la && terraform fmt; git diff | cat", ["ls", "terraform fmt", "git diff", "cat"]),
        ("echo \"$(whoami)\" `id`", ["echo", "whoami", "id"]),
        ("ls 2>/dev/null 2>&1", ["ls"]),
        ("terraform plan\nrm -rf /", ["exactly terraform plan", None]),
        ("(cd build && make test)", ["cd", "exactly make test"]),
        ("[ -f main.tf ] && echo yes", ["test", "echo"]),
        ("iac-code validate . --format json", ["iac-code validate"]),  # not every iac-code command
        ("vault kv get secret/x", ["exactly vault kv get secret/x"]),
        ("sed -n '1,5p;/x/{s/a/b/g;p}' f", ["sed"]),
        ("awk -F, '{print $2}' f | sort -u | uniq -c", ["awk", "sort", "uniq"]),
        ("head -5 f; tail -n 3 f; wc -l f; cut -d/ -f1 f", ["head", "tail", "wc", "cut"]),
        ("jq -r '.a[] | .b' f.json", ["jq"]),
        ("find . -name '*.tf' -type f -print", ["find"]),
        ("git log --oneline -5 && git show HEAD --stat", ["git log", "git show"]),
        ("helm template app ./chart -f values.yaml", ["helm template"]),
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


@pytest.mark.parametrize(
    "command",
    ["echo ${x:='$(touch m)'} ${x@P}", "echo ${x=$'\\x24(touch m)'} ${x@P}", "echo $(( 'a[$(touch m)]' ))",
     "echo $[ 'a[$(touch m)]' ]", "echo ${a['$(touch m)']}", "echo ${x:='a[$(touch m)]'} ${!x}", "echo ${a[x]}",
     "echo ${HOME:x}", "echo $((x))", "test -v 'a[$(touch m)]'", "[ '-v' 'a[$(touch m)]' ]", "[[ -v 'a[$(touch m)]' ]]",
     "[[ 'a[$(touch m)]' -eq 1 ]]", "[[ $n -lt 2 ]]", "cat <<EOF\n${x:=\\$(touch m)}${x@P}\nEOF"],
)
def test_a_command_bash_would_evaluate_a_string_of_as_code_is_opaque(command):
    """Arithmetic contexts, array subscripts and `${x@P}` run the `$(…)` a value or a quoted string
    holds; the parser sees a string, so the command gets no rule (bash 5 ran `touch m` in each,
    given a value for `x`/`n` where one is read)."""
    assert [p.rule for p in parts(command)] == [None]


@pytest.mark.parametrize(
    ("command", "expected"),
    [("echo $((1+2)) ${#HOME} ${HOME%/*} ${x:-y} ${x:1:2} ${a[@]} ${x//a/b}", ["echo"]), ("[[ 2 -gt 1 ]]", ["test"]),
     ("[ -n \"$HOME\" ]", ["test"]), ("sleep $((1))", ["sleep"])],
)
def test_expansions_that_only_read_keep_their_rule(command, expected):
    assert [p.rule for p in parts(command)] == expected


def test_without_a_sandbox_every_rule_is_the_exact_command_line():
    found = parts("cd infra && terraform fmt -check; rm -rf x", exact=True)
    assert [p.rule for p in found] == ["exactly cd infra", "exactly terraform fmt -check", None]
    assert describe([p.rule for p in found if p.rule]) == "exactly `cd infra` and `terraform fmt -check`"
    assert describe(["git status", "cat", "exactly make build"]) == "`git status` and `cat` commands and exactly `make build`"


SAFE_AND_UNSAFE = [
    # (a form the program's safe list covers, forms it does not)
    ("ls -la --color=auto docs", ["ls --format=x --hide-control-chars"]),
    ("cat -n main.tf", ["cat --nope main.tf"]),
    ("head -n 20 main.tf", ["head --follow main.tf"]),
    ("grep -rn --include='*.tf' aws_vpc .", ["grep --devices=read x main.tf"]),
    ("rg -n -t tf aws_vpc", ["rg --pre cat x", "rg --search-zip x", "rg -z x", "rg --ignore-file=f x"]),
    ("find . -name '*.tf' -type f -maxdepth 2 -print", ["find . -exec id ;", "find . -execdir id ;", "find . -delete",
     "find . -fprint out", "find . -fls out", "find . -fprintf out %p", "find -L . -name x", "find . -files0-from f"]),
    ("sed -n '1,20p' main.tf", ["sed -n '1e touch x' f", "sed '1w /x' f", "sed -i s/a/b/ f", "sed -n 's/a/b/e' f",
     "sed 's/a/b/w out' f", "sed '1r /etc/passwd' f", "sed '1R f' f", "sed 'a\\x' f", "sed -f script.sed f",
     "sed --in-place s/a/b/ f", "sed -e 's/a/b/\\' -e 'w x/' f"]),
    ("awk -F, '$3 > 5 {n++} END {print n}' data.csv", ["awk '{system(\"id\")}' f", "awk '{print > \"x\"}' f",
     "awk '{print | \"sh\"}' f", "awk '{getline l < \"/etc/passwd\"}' f", "awk 'BEGIN{print ENVIRON[\"HOME\"]}'",
     "awk 'BEGIN{ARGV[1]=\"/etc/passwd\"}{print}'", "awk -f prog.awk f", "awk -E prog.awk f",
     "awk 'BEGIN{print SYMTAB[\"ENV\" \"IRON\"][\"HOME\"]}'"]),
    ("sort -u -k2,2 -t, data.csv", ["sort --compress-program=sh f", "sort -o out f", "sort --output=out f",
     "sort -T tmp f", "sort --files0-from=list", "sort --compress-prog=sh f", "sort --random-source=f f"]),
    ("uniq -c data.csv", ["uniq data.csv out.csv"]),
    ("cut -d/ -f1 paths.txt", ["cut --nope f"]),
    ("diff -u a.tf b.tf", ["diff --from-file=a b", "diff -X list a b"]),
    ("jq -r '.resources[] | .type' plan.json", ["jq env f", "jq '$ENV.HOME' f", "jq -L lib 'import \"x\" as x; .' f",
     "jq -f prog.jq f", "jq -n '$ ENV.HOME'", "jq -n '$\tENV'", "jq -n '$#c\nENV'", "jq -n '\"x\" | modulemeta'"]),
    ("yq '.spec.replicas' deploy.yaml", ["yq -i '.a=1' f", "yq 'env(HOME)' f", "yq 'load(\"/etc/passwd\")' f",
     "yq e '.a' f", "yq --split-exp '.a' f", "yq -s '\"/tmp/x\"' '.' f", "yq -n '\"${HOME}\" | envsubst'",
     "yq '$ ENV.HOME' f"]),
    ("sha256sum main.tf", ["sha256sum -c sums.txt", "md5sum --check sums.txt"]),
    ("git status -sb", ["git status --nope"]),
    ("git diff --stat HEAD~1", ["git diff --output=main.tf", "git diff --ext-diff", "git diff --no-index a b"]),
    ("git log --oneline -5 --author=x", ["git log --output=main.tf", "git log --out=main.tf", "git log --show-signature"]),
    ("git show HEAD --stat", ["git show --output=x HEAD"]),
    ("git branch -a --list 'feat*'", ["git branch new", "git branch -D x", "git branch -m a b",
     "git branch --edit-description"]),
    ("git rev-parse --show-toplevel", ["git rev-parse --git-path x"]),
    ("git ls-files -z --others", ["git ls-files -X list"]),
    ("git -C modules/vpc status", ["git --git-dir=evil status", "git --work-tree=.. status", "git -c core.fsmonitor=x status",
     "git --exec-path=. status", "git --config-env=core.pager=X log", "git -p log"]),
    ("terraform fmt -check -recursive", ["terraform fmt -nope"]),
    ("terraform -chdir=infra validate -json", ["terraform graph -plan=tfplan", "terraform providers lock"]),
    ("tofu version", ["tofu version extra"]),
    ("kubectl get pods -n prod -o json", ["kubectl --kubeconfig=k get pods", "kubectl get pods -o go-template-file=t",
     "kubectl get -f https://x.example/m.yaml",
     "kubectl -s http://evil get pods", "kubectl get pods --token=x"]),
    ("kubectl describe deploy web", ["kubectl describe deploy web --as=admin"]),
    ("helm template web ./chart -f values.yaml", ["helm template web ./chart --post-renderer ./r",
     "helm template web repo/chart --repo https://x", "helm template web oci://x/y", "helm template web ./c --output-dir o",
     "helm template web ./c --set-file a=/etc/passwd", "helm --kubeconfig k template web ./c",
     "helm template web ./c -f https://x.example/v.yaml"]),
    ("helm lint ./chart --strict", ["helm lint ./chart --nope"]),
    ("iac-code validate . --format sarif", ["iac-code -p 'rm -rf ~'", "iac-code --prompt=x", "iac-code validate -p x"]),
    ("cp -r modules/vpc modules/vpc2", ["cp -l a b", "cp -s a b", "cp -L a b", "cp --link a b"]),
]


@pytest.mark.parametrize(("allowed", "refused"), SAFE_AND_UNSAFE, ids=[a.split()[0] + " " + a.split()[1] for a, _ in SAFE_AND_UNSAFE])
def test_a_rule_covers_the_safe_options_of_a_program_and_nothing_else(allowed, refused):
    """Each listed program: the safe form gets the program (and subcommand) rule; a form with an
    option that runs a program, writes or reads a file not named, or is not on its list, gets none."""
    found = rules(allowed)
    assert len(found) == 1 and found[0] and not found[0].startswith("exactly"), found
    for command in refused:
        assert rules(command) == [None], command


@pytest.mark.parametrize(
    "command",
    ["make build", "npm test", "pytest -q", "terraform plan -out=tfplan", "tflint", "checkov -d .",
     "kustomize build overlays/prod", "git commit -m x", "tar -tf a.tar"],
)
def test_an_unlisted_program_gets_a_rule_for_its_exact_line_only(command):
    assert rules(command) == [f"exactly {command}"]


@pytest.mark.parametrize(
    "command",
    ["split --filter=sh f", "make --eval='$(shell id)'", "make -E x", "tar --transform s/a/b/ -P -xf a.tar",
     "tar xPf a.tar", "tar -xf a.tar --to-command=sh", "git clone --template=tpl x y", "curl file:///etc/passwd",
     "curl -K cfg", "wget x", "foo --config=x", "foo --output-file=x", "foo --out=x", "foo --exec=id",
     "git commit --no-verify -m x", "ssh host id"],
)
def test_no_rule_at_all_covers_an_unlisted_command_that_runs_writes_or_reads_by_an_option(command):
    assert None in rules(command)


def test_a_rejection_covers_every_form_of_the_program_and_subcommand():
    [part] = parts("terraform -chdir=x apply -no-color")
    assert part.rule == "exactly terraform -chdir=x apply -no-color"
    assert part.family == "terraform apply"


@pytest.fixture
def project(tmp_path):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    (root / "notes.txt").write_text("n\n")
    (root / "main.tf").write_text("x\n")
    (tmp_path / "cfg").mkdir()
    return root


def checked(command, project):
    return [p.rule for p in parts(command, project, project.parent / "cfg")]


def test_arguments_are_resolved_from_the_directory_after_a_cd(project):
    (project / "sub" / "key").symlink_to(project.parent / "home" / ".ssh" / "id_rsa")
    assert checked("cat sub/key", project) == [None]
    assert checked("cd sub && cat key", project) == ["cd", None]
    assert checked("cd sub; cd ..; cat notes.txt", project)[1] is None  # `..` leaves the cwd by its text
    assert checked("cd sub && ls", project) == ["cd", "ls"]


def test_a_hard_linked_file_counts_as_outside(project):
    import os

    os.link(project.parent / "home" / ".ssh" / "id_rsa", project / "notes2.txt")
    assert checked("cat notes2.txt", project) == [None]
    assert checked("wc -l *", project) == [None]  # a glob that matches it


def test_a_recursive_read_that_reaches_a_secret_is_not_covered(project):
    assert checked("grep -r PASSWORD .", project) == ["grep"]
    assert checked("rg PASSWORD", project) == ["rg"]
    (project / ".env").write_text("PASSWORD=x\n")
    assert checked("grep -r PASSWORD .", project) == [None]
    assert checked("grep -R PASSWORD", project) == [None]  # no operand: the cwd
    assert checked("grep PASSWORD notes.txt", project) == ["grep"]  # not recursive
    assert checked("rg PASSWORD", project) == ["rg"]  # rg skips hidden files unless told
    assert checked("rg --hidden PASSWORD", project) == [None]
    assert checked("rg -uu PASSWORD", project) == [None]
    assert checked("grep -r PASSWORD sub", project) == ["grep"]
    (project / "sub" / "deploy.pem").write_text("KEY\n")
    assert checked("rg KEY", project) == [None]
    assert checked("diff -r sub .", project) == [None]
    assert checked("cp -r sub sub2", project) == [None]


def test_cp_and_mv_of_a_link_are_not_covered(project):
    """A relative link is inside the project where it is and leads out once moved: `a/b/L ->
    ../../home` is `proj/home`; moved to `proj/L` it is the home directory above the project."""
    (project / "a" / "b").mkdir(parents=True)
    (project / "a" / "b" / "L").symlink_to("../../home")
    assert checked("cat a/b/L/x", project) == ["cat"]  # where it is, it leads inside
    for command in ("mv a/b/L L", "cp -P a/b/L L", "cp -a a/b c", "mv a c", "cp -r a c", "mv a/* c"):
        assert checked(command, project) == [None], command
    assert checked("mv a/b/L L && grep -r KEY L", project) == [None, "grep"]
    assert checked("cp -r sub sub2", project) == ["cp"]
    assert checked("mv notes.txt sub/", project) == ["mv"]


def test_a_glob_is_checked_on_what_it_expands_to_now(project):
    assert checked("cat *.tf", project) == ["cat"]
    (project / "terraform.tfstate").write_text("{}")
    assert checked("cat *", project) == [None]  # a secret among the names
    (project / "terraform.tfstate").unlink()
    (project / "--output=x.tf").write_text("")
    assert checked("git diff *.tf", project) == [None]  # a name that bash passes as an option
    (project / "--output=x.tf").unlink()
    assert checked("touch ./--output=x.tf; git diff *.tf", project) == ["touch", None]  # made before it expands


def test_git_is_not_covered_in_a_repository_the_agent_could_have_made(project):
    (project / ".git").mkdir()
    assert checked("git status", project) == ["git status"]
    evil = project / "sub"
    (evil / "objects").mkdir()
    (evil / "refs").mkdir()
    (evil / "HEAD").write_text("ref: refs/heads/main\n")  # a bare repository: its `config` runs code
    assert checked("git -C sub status", project) == [None]
    assert checked("cd sub && git log", project) == ["cd", None]


def test_an_input_redirection_is_a_read_of_its_file(project):
    assert checked("wc -l < notes.txt", project) == ["wc"]
    assert checked("wc -c < ~/.ssh/id_rsa", project) == ["wc", None]
    (project / "sub" / "key").symlink_to(project.parent / "home" / ".ssh" / "id_rsa")
    assert checked("wc -c < sub/key", project) == ["wc", None]


def test_a_recursive_read_limited_to_other_names_does_not_reach_the_secret(project):
    (project / ".env").write_text("PASSWORD=x\n")
    assert checked("grep -rn aws_vpc --include='*.tf' .", project) == ["grep"]
    assert checked("grep -rn aws_vpc --include='*.env' .", project) == [None]
    assert checked("rg --hidden -g '*.tf' aws_vpc", project) == ["rg"]
    assert checked("rg --hidden -g '!*.md' aws_vpc", project) == [None]  # an exclusion leaves .env in


def test_git_that_prints_tracked_files_is_not_covered_where_a_secret_is_tracked(project):
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "notes.txt"], cwd=project, check=True)
    assert checked("git show HEAD; git log -p; git diff", project) == ["git show", "git log", "git diff"]
    (project / ".env").write_text("PASSWORD=x\n")
    subprocess.run(["git", "add", "-f", ".env"], cwd=project, check=True)
    assert checked("git show HEAD; git log -p; git diff", project) == [None, None, None]
    assert checked("git status; git ls-files", project) == ["git status", "git ls-files"]  # names only


def test_terraform_fmt_does_not_cover_a_tf_link_out_of_the_project(project):
    (project / "modules").mkdir()
    assert checked("terraform fmt -recursive", project) == ["terraform fmt"]
    (project.parent / "other.tf").write_text("x\n")
    (project / "modules" / "shared.tf").symlink_to(project.parent / "other.tf")  # fmt would rewrite it
    assert checked("terraform fmt -recursive", project) == [None]
    assert checked("terraform fmt -check sub", project) == ["terraform fmt"]


def test_kubectl_files_are_checked_in_the_directory_it_reads(project):
    (project / "k8s").mkdir()
    (project / "k8s" / "app.yaml").write_text("kind: Pod\n")
    assert checked("kubectl diff -f k8s", project) == ["kubectl diff"]
    (project / "k8s" / "x.yaml").symlink_to(project.parent / "home" / ".ssh" / "id_rsa")
    assert checked("kubectl diff -f k8s", project) == [None]


def test_a_program_on_a_path_inside_the_project_is_not_covered(project, monkeypatch):
    assert checked("ls", project) == ["ls"]
    monkeypatch.setenv("PATH", f".{os.pathsep}/usr/bin{os.pathsep}/bin")  # `.` first: `./ls` would run
    assert checked("ls; cd sub", project) == [None, "cd"]  # cd is a builtin


@pytest.mark.parametrize(
    ("command", "expected"),
    [("jq -r .key f.json", ["jq"]), ("grep -n id_rsa notes.txt", ["grep"]), ("sed -n '/.env/p' notes.txt", ["sed"]),
     ("echo add .env to .gitignore", ["echo"]), ("jq -r .key .env", [None]), ("grep x key.pem", [None]),
     ("grep -f id_rsa notes.txt", [None]), ("foo .env", [None]), ("git show HEAD:.env", [None])],
)
def test_only_the_words_a_safe_list_takes_for_files_are_checked_for_secret_names(command, expected):
    assert rules(command) == expected
