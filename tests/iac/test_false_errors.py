"""Code that Terraform or Kubernetes accepts gets no error (issue 18's false errors, each as a
minimal repro), and the errors next to them stay.

Where `terraform` is on PATH, each Terraform repro is also run through `terraform init
-backend=false` and `terraform validate` (offline: only the built-in `terraform_data` resource
and local modules), so the test checks Terraform's own verdict, not ours alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from iac_code.iac.engine import Options, check, validate

OFFLINE = Options(terraform_cli=False)
TERRAFORM = shutil.which("terraform") or shutil.which("tofu")


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def errors(root: Path) -> list[str]:
    return [f"{d.file.name}:{d.line} {d.rule} {d.message}" for d in validate([root], OFFLINE) if d.severity == "error"]


def terraform_accepts(root: Path) -> None:
    """Terraform's own verdict on `root` (skipped without the binary)."""
    if TERRAFORM is None:
        return
    env = {**os.environ, "TF_CLI_CONFIG_FILE": os.devnull, "CHECKPOINT_DISABLE": "1", "TF_IN_AUTOMATION": "1"}
    init = subprocess.run([TERRAFORM, "init", "-backend=false", "-input=false", "-no-color"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert init.returncode == 0, init.stdout + init.stderr
    result = subprocess.run([TERRAFORM, "validate", "-no-color"], cwd=root, env=env, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


RESOURCE_PREFIX = '''resource "terraform_data" "a" {
  input = "x"
}

resource "terraform_data" "b" {
  input      = resource.terraform_data.a.output
  depends_on = [resource.terraform_data.a]
}
'''

FOR_NEWLINE = '''locals {
  pairs = { for k, v in { a = 1 } : k
  => v }
  sum = (1
    - 2)
}

output "pairs" {
  value = local.pairs
}
'''

MODULE_INDEX_IN_TRY = '''module "m" {
  source = "./mod"
}

locals {
  first = try(module.m[0].out, null)
  known = can(module.m[0].out)
}
'''

DEPENDS_ON_MODULE_OUTPUT = '''module "each" {
  source   = "./mod"
  for_each = toset(["a", "b"])
}

resource "terraform_data" "after" {
  depends_on = [module.each.out]
}
'''

QUOTED_REFERENCES = '''resource "terraform_data" "a" {
  input = "x"
}

resource "terraform_data" "b" {
  depends_on = ["terraform_data.a"]
}
'''

SET_OR_EMPTY = '''variable "on" {
  type    = bool
  default = false
}

resource "terraform_data" "each" {
  for_each = var.on ? toset(["a", "b"]) : []
  input    = each.key
}

variable "names" {
  type = list(string)
}

resource "terraform_data" "unknown" {
  for_each = var.on ? toset(var.names) : []
  input    = each.key
}
'''

MOD = {"mod/main.tf": 'output "out" {\n  value = 1\n}\n'}


@pytest.mark.parametrize("name, files", [
    ("resource-prefix", {"main.tf": RESOURCE_PREFIX}),
    ("for-object-newline", {"main.tf": FOR_NEWLINE}),
    ("module-index-in-try", {"main.tf": MODULE_INDEX_IN_TRY, **MOD}),
    ("depends-on-module-output", {"main.tf": DEPENDS_ON_MODULE_OUTPUT, **MOD}),
    ("quoted-references", {"main.tf": QUOTED_REFERENCES}),
    ("set-or-empty-tuple", {"main.tf": SET_OR_EMPTY}),  # one type for both results: a set (terraform-google-kubernetes-engine)
])
def test_terraform_accepts_it_and_so_do_we(tmp_path: Path, name: str, files: dict[str, str]) -> None:
    root = write(tmp_path / name, files)
    assert errors(root) == []
    terraform_accepts(root)


def test_quoted_references_are_warnings_as_in_terraform(tmp_path: Path) -> None:
    root = write(tmp_path, {"main.tf": QUOTED_REFERENCES})
    found = [(d.line, d.severity, d.rule) for d in validate([root], OFFLINE)]
    assert found == [(6, "warning", "terraform.invalid-reference")]


def test_a_resource_index_without_count_stays_an_error_inside_try(tmp_path: Path) -> None:
    root = write(tmp_path, {"main.tf": 'resource "terraform_data" "a" {\n  input = "x"\n}\n\n'
                                       'locals {\n  x = try(terraform_data.a[0].output, null)\n}\n'})
    assert [(d.line, d.rule) for d in validate([root], OFFLINE)] == [(6, "terraform.unexpected-instance-key")]


def test_a_tuple_or_an_empty_tuple_stays_a_list_for_each_error(tmp_path: Path) -> None:
    root = write(tmp_path, {"main.tf": SET_OR_EMPTY.replace('toset(["a", "b"])', '["a", "b"]')})
    assert [(d.line, d.rule) for d in validate([root], OFFLINE) if d.severity == "error"] == [(7, "terraform.for-each-list")]


def test_the_steps_after_a_splat_are_read_in_order(tmp_path: Path) -> None:
    # cloudposse/terraform-aws-eks-cluster: `x[*].identity[0].oidc[0].issuer` was read as x.issuer
    # (the aws provider's data speaks; terraform itself would need the provider from the registry)
    main = """terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 6.0"
    }
  }
}

resource "aws_eks_cluster" "this" {
  count    = 1
  name     = "c"
  role_arn = "arn:aws:iam::123456789012:role/eks"

  vpc_config {
    subnet_ids = ["subnet-1"]
  }
}

output "issuer" {
  value = one(aws_eks_cluster.this[*].identity[0].oidc[0].issuer)
}
"""
    root = write(tmp_path, {"main.tf": main})
    assert errors(root) == []
    (root / "main.tf").write_text(main.replace("[*].identity[0]", "[*].identty[0]"))
    assert [e.split()[1] for e in errors(root)] == ["terraform.resource-unknown-attribute"]  # the first step is still checked


def test_one_unparsable_file_does_not_make_its_module_undeclared(tmp_path: Path) -> None:
    root = write(tmp_path, {"vars.tf": 'variable "a" {\n  type = string\n', "main.tf": 'output "a" {\n  value = var.a\n}\n'})
    assert [(d.file.name, d.rule) for d in validate([root], OFFLINE) if d.severity == "error"] == [("vars.tf", "hcl.syntax")]


def test_a_file_terraform_parses_and_python_hcl2_cannot_is_skipped_not_an_error(tmp_path: Path) -> None:
    if TERRAFORM is None:
        pytest.skip("needs terraform (or tofu) on PATH to tell its parser's verdict")
    root = write(tmp_path, {"main.tf": 'locals {\n  café = 1\n}\n'})  # Terraform identifiers are Unicode
    outcome = check([root], Options())
    assert [d.rule for d in outcome.diagnostics if d.severity == "error"] == []
    assert [(s.file.name, s.reason) for s in outcome.skipped] == [("main.tf", "python-hcl2 cannot parse it, though `terraform fmt` accepts it")]


KUSTOMIZATION = '''apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - deployment.yaml
patches:
  - path: replicas.yaml
patchesStrategicMerge:
  - memory.yaml
patchesJson6902:
  - target: {group: apps, version: v1, kind: Deployment, name: web}
    path: json-patch.yaml
'''
DEPLOYMENT = '''apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx
'''


def test_kustomize_patches_are_partial_objects(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "kustomization.yaml": KUSTOMIZATION,
        "deployment.yaml": DEPLOYMENT,
        "replicas.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
        "memory.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
                       "      containers:\n        - name: web\n          resources: {limits: {memory: 512Mi}}\n",
        "json-patch.yaml": "- op: replace\n  path: /spec/replicas\n  value: 2\n",
        "delete.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: old\n$patch: delete\n",
    })
    assert errors(root) == []
    unlisted = write(tmp_path / "other", {"replicas.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n"})
    assert any("selector" in e or "template" in e for e in errors(unlisted))  # not a patch: the full schema holds


def test_a_custom_resource_of_kind_service_is_not_held_to_the_service_name_rule(tmp_path: Path) -> None:
    # Config Connector's Service is named after the API it enables (terraform-google-kubernetes-engine)
    crd = "apiVersion: serviceusage.cnrm.cloud.google.com/v1beta1\nkind: Service\nmetadata:\n  name: sqladmin.googleapis.com\n"
    root = write(tmp_path, {"services.yaml": crd})
    assert errors(root) == []
    (root / "services.yaml").write_text(crd.replace("serviceusage.cnrm.cloud.google.com/v1beta1", "v1"))
    assert [e.split()[1] for e in errors(root)] == ["k8s.name"]  # a core Service's name is a DNS-1035 label


def test_a_service_may_select_the_labels_a_controller_adds(tmp_path: Path) -> None:
    # GoogleCloudPlatform/kubernetes-engine-samples: a headless Service for a Job's pods (job-name)
    pod = "    spec:\n      containers:\n        - name: c\n          image: busybox\n"
    service = "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  clusterIP: None\n  selector:\n    {}\n  ports:\n    - port: 80\n"
    job = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train\nspec:\n  template:\n" + pod.replace("    spec:", "    spec:\n      restartPolicy: Never")
    sts = ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: web\nspec:\n  serviceName: s\n  selector:\n    matchLabels: {app: web}\n"
           "  template:\n    metadata:\n      labels: {app: web}\n" + pod)
    root = write(tmp_path, {"job.yaml": job + service.format("job-name: train"),
                            "job2.yaml": job + service.format("batch.kubernetes.io/job-name: train"),
                            "sts.yaml": sts + service.format("statefulset.kubernetes.io/pod-name: web-0")})
    assert [d for d in validate([root], OFFLINE)] == []
    (root / "job.yaml").write_text(job + service.format("job-name: trian"))
    (root / "sts.yaml").write_text(sts + service.format("statefulset.kubernetes.io/pod-name: db-0"))
    assert sorted((d.file.name, d.rule) for d in validate([root], OFFLINE)) == [("job.yaml", "k8s.service-selector"), ("sts.yaml", "k8s.service-selector")]


def test_yaml_floats_read_as_kubernetes_and_helm_read_them(tmp_path: Path) -> None:
    # go-yaml (Kubernetes, Helm) reads a plain 1e-05 as a number; PyYAML's YAML 1.1 wants a dot.
    root = write(tmp_path, {
        "chart/Chart.yaml": "apiVersion: v2\nname: train\nversion: 0.1.0\n",
        "chart/values.yaml": "learningRate: 1e-05\nepochs: 3\n",
        "chart/values.schema.json": '{"type": "object", "properties": {"learningRate": {"type": "number"}, "epochs": {"type": "integer"}}}',
        "config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  rate: '1e-05'\n",
    })
    assert errors(root) == []
    (root / "config.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  rate: 1e-05\n")
    assert [e.split()[1] for e in errors(root)] == ["k8s.schema"]  # kubectl: a number where data wants strings


def test_templates_with_braces_outside_helm_charts_are_checked(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "cfn.yaml": 'AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  P:\n    Type: AWS::RDS::DBInstance\n'
                    '    Properties:\n      MasterUserPassword: "{{resolve:secretsmanager:db:SecretString:password}}"\n'
                    '      DBInstanceClass: db.t3.micro\n      Engine: mysql\n      AllocatedStorage: "20"\n      MasterUsername: admin\n'
                    '  B:\n    Type: AWS::S3::Bucket\n    Properties:\n      BucketNam: x\n',
        "ros.yaml": "ROSTemplateFormatVersion: '2015-09-01'\nParameters:\n  Zone:\n    Type: String\n"
                    "    Default: '{{ computenest::zone }}'\nResources:\n  V:\n    Type: ALIYUN::ECS::VPC\n"
                    "    Properties:\n      CidrBlock: 10.0.0.0/8\n      VpcName: !Ref Zon\n",
    })
    outcome = check([root], OFFLINE)
    assert outcome.skipped == []
    assert {p.name: k for p, k in outcome.checked.items()} == {"cfn.yaml": "cloudformation", "ros.yaml": "ros"}
    found = {(d.file.name, d.rule) for d in outcome.diagnostics if d.severity == "error"}
    assert ("cfn.yaml", "cfn.E3002") in found and ("ros.yaml", "ros.undeclared-ref") in found


def test_helm_templates_are_counted_as_not_checked(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "chart/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
        "chart/values.yaml": "replicas: 2\n",
        "chart/templates/deployment.yaml": "replicas: {{ .Values.replicas }}\n",
        "chart/templates/_helpers.tpl": '{{- define "web.name" -}}web{{- end }}\n',
        "jinja/app.yaml": "name: {{ app_name }}\nitems: {% for x in y %}\n",
    })
    outcome = check([root], OFFLINE)
    assert [(s.file.relative_to(root).as_posix(), s.reason) for s in outcome.skipped] == [
        ("chart/templates/deployment.yaml", "a Helm template (rendered by helm, not YAML until then)"),
        ("jinja/app.yaml", "a template ({{ ... }}) that is not YAML until rendered"),
    ]
    assert outcome.diagnostics == []


def test_go_and_mustache_templates_that_parse_as_yaml_are_not_checked_as_manifests(tmp_path: Path) -> None:
    # found in kubernetes-sigs/kustomize (kyaml's fn framework) and kubernetes/examples (vitess)
    root = write(tmp_path, {
        "deploy.template.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Name }}\nspec:\n  replicas: {{ .Replicas }}\n",
        "etcd-template.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: etcd-{{cell}}\n  labels:\n    cell: '{{cell}}'\n"
                              "spec:\n  ports:\n    - port: 2379\n",
        "alerts.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: alerts\ndata:\n  rule: 'instance {{ $labels.instance }} is down'\n",
    })
    outcome = check([root], OFFLINE)
    assert sorted(s.file.name for s in outcome.skipped) == ["deploy.template.yaml", "etcd-template.yaml"]
    assert outcome.checked == {root / "alerts.yaml": "kubernetes"}  # `{{` in data is text
    assert outcome.diagnostics == []


def test_envsubst_templates_are_not_checked_as_manifests(tmp_path: Path) -> None:
    # found in GoogleCloudPlatform/kubernetes-engine-samples (envsubst < pool.yaml | kubectl apply -f -)
    root = write(tmp_path, {
        "pool.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${APP_NAME:-vllm}\nspec:\n  replicas: ${REPLICAS:-1}\n",
        "job.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train-${JOB_ID}\n",
        "shell.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: shell\nspec:\n  containers:\n    - name: sh\n"
                      "      image: busybox\n      command: [sh, -c, 'echo ${HOME}']\n",
    })
    outcome = check([root], OFFLINE)
    assert sorted((s.file.name, s.reason.split()[1]) for s in outcome.skipped) == [("job.yaml", "template"), ("pool.yaml", "template")]
    assert outcome.checked == {root / "shell.yaml": "kubernetes"}  # `${` in a command is the shell's
    assert outcome.diagnostics == []


def test_ros_select_takes_a_default_and_a_message(tmp_path: Path) -> None:
    # aliyun/ros-templates resources/ecs/run-command-case3.yml
    root = write(tmp_path, {"t.yaml": "ROSTemplateFormatVersion: '2015-09-01'\nResources:\n  W:\n    Type: ALIYUN::ROS::WaitConditionHandle\n"
                                      "Outputs:\n  A:\n    Value:\n      Fn::Select: [not_exist, {}, null]\n"
                                      "  B:\n    Value:\n      Fn::Select: [not_exist, {}, null, no such output]\n"})
    assert errors(root) == []
