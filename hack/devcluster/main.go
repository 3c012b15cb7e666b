// Command devcluster starts a local development control plane (the same real
// kube-apiserver and etcd the tests use, from hack/envtest-assets.sh), installs
// the CwacScan CRD, writes an admin kubeconfig and waits for SIGINT/SIGTERM.
// It has no kubelet: Jobs are created but their pods never run.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

func main() {
	assets := flag.String("assets", os.Getenv("KUBEBUILDER_ASSETS"), "directory holding etcd, kube-apiserver and kubectl")
	crds := flag.String("crds", "config/crd/bases", "CRD directory to install")
	kubeconfig := flag.String("write-kubeconfig", "bin/dev/kubeconfig", "where to write the admin kubeconfig")
	flag.Parse()
	if *assets == "" {
		fmt.Fprintln(os.Stderr, "devcluster: --assets (or KUBEBUILDER_ASSETS) is required: run hack/envtest-assets.sh")
		os.Exit(2)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: *assets,
		CRDDirectoryPaths:     []string{*crds},
		ErrorIfCRDPathMissing: true,
	}
	if _, err := env.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "devcluster: starting control plane:", err)
		os.Exit(1)
	}
	defer func() { _ = env.Stop() }()
	user, err := env.AddUser(envtest.User{Name: "dev-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "devcluster: creating admin user:", err)
		return
	}
	data, err := user.KubeConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "devcluster: rendering kubeconfig:", err)
		return
	}
	if err := os.MkdirAll(filepath.Dir(*kubeconfig), 0o700); err != nil {
		fmt.Fprintln(os.Stderr, "devcluster:", err)
		return
	}
	tmp := *kubeconfig + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "devcluster:", err)
		return
	}
	if err := os.Rename(tmp, *kubeconfig); err != nil {
		fmt.Fprintln(os.Stderr, "devcluster:", err)
		return
	}
	fmt.Printf("devcluster: API server %s ready; kubeconfig %s\n", env.Config.Host, *kubeconfig)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	_ = os.Remove(*kubeconfig)
	fmt.Println("devcluster: stopping")
}
