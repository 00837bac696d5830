package inventory_test

import (
	"fmt"

	"github.com/fleetlab/fleet/inventory"
)

func ExampleParse() {
	inv, err := inventory.Parse("boards.toml", []byte(`
[defaults]
user = "root"

[boards.am64x]
host = "192.0.2.64"
arch = "aarch64"
tags = ["ti", "nightly"]
modes = ["soft", "cpu", "devcrypto"]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range inv.Boards() {
		fmt.Printf("%s host=%q user=%q arch=%q local=%v\n", b.Name, b.Host, b.User, b.Arch, b.Local)
	}
	// Output:
	// am64x host="192.0.2.64" user="root" arch="arm64" local=false
	// local host="" user="" arch="" local=true
}

func ExampleParse_errors() {
	_, err := inventory.Parse("boards.toml", []byte(`
[boards.am64x]
hots = "192.0.2.64"
port = 70000
modes = ["soft", "gpu"]
`))
	fmt.Println(err)
	// Output:
	// boards.toml:2:1: board "am64x": missing host (expected host = "NAME-OR-ADDRESS", or an alias from ~/.ssh/config)
	// boards.toml:3:1: board "am64x": unknown key "hots", did you mean "host"? (expected one of host, port, user, identity_file, known_hosts, proxy_jump, arch, soc, tags, modes, env, openssl, agent, validity, kernel_log, reconnect_wait, cpus, power, power_command)
	// boards.toml:4:8: board "am64x": port 70000 is out of range (expected 1-65535)
	// boards.toml:5:18: board "am64x": modes[1]: unknown mode "gpu" (expected soft, cpu, devcrypto, afalg, kcapi, ssh, kcapi:DRIVER, kcapi:all, engine:NAME or provider:NAME)
}

func ExampleInventory_Select() {
	inv, _ := inventory.Parse("boards.toml", []byte(`
[boards.am335x]
host = "192.0.2.35"
tags = ["nightly"]

[boards.am64x]
host = "192.0.2.64"
tags = ["nightly"]
`))
	boards, _ := inv.Select([]string{"local"}, []string{"nightly"}, false)
	for _, b := range boards {
		fmt.Println(b.Name)
	}
	_, err := inv.Select([]string{"am64"}, nil, false)
	fmt.Println(err)
	// Output:
	// local
	// am335x
	// am64x
	// unknown board "am64": did you mean "am64x"? (known boards: am335x, am64x, local)
}
