locals {
  name   = "${local.prefix}-app" # expect: terraform.local-cycle
  prefix = lower(local.name)
  self   = local.self + 1 # expect: terraform.local-cycle
  fine   = local.base
  base   = "x"
  a      = local.b # expect: terraform.local-cycle
  b      = { for k, v in local.c : k => v }
}

locals {
  c = merge(local.a, { d = local.fine })
}
