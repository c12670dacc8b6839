locals {
  script = <<EOT # expect: hcl.syntax
#!/bin/sh
echo hello
}
