resource "a" "b" {
  name = "café"
}
