package mcpserver

import (
	"bytes"
	"io"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

func inNamespace(ns string) client.ListOption { return client.InNamespace(ns) }

func limitOne() client.ListOption { return client.Limit(1) }
