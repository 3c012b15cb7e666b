# cwac-operator — build, generate, test.
SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

LOCALBIN ?= $(CURDIR)/bin
CONTROLLER_TOOLS_VERSION ?= v0.23.0
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
K8S_VERSION ?= 1.37.1
GO ?= go

.PHONY: all
all: build

##@ Generate

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## CRD and RBAC from the API types and +kubebuilder markers.
	$(CONTROLLER_GEN) crd paths="./api/..." output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=manager-role paths="./internal/controller/..." output:rbac:artifacts:config=config/rbac
	$(CONTROLLER_GEN) rbac:roleName=mcp-server-role,fileName=mcp_server_role.yaml paths="./internal/mcpserver/..." output:rbac:artifacts:config=config/rbac
	$(MAKE) --no-print-directory chart-sync

.PHONY: chart-sync
chart-sync: ## Copy the generated CRD and RBAC rules into the Helm chart (never edit those copies).
	cp config/crd/bases/*.yaml charts/cwac-operator/files/crds/
	cp config/rbac/role.yaml config/rbac/mcp_server_role.yaml charts/cwac-operator/files/rbac/
	cp config/seccomp/cwac-chrome.json charts/cwac-operator/files/seccomp/

.PHONY: generate
generate: $(CONTROLLER_GEN) ## DeepCopy methods.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./..."

.PHONY: verify
verify: $(CONTROLLER_GEN) ## Fails if regenerating CRD, RBAC or deepcopy would change the tree.
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	tar --exclude=./bin --exclude=./.git -cf - . | tar -xf - -C "$$tmp"; \
	$(MAKE) --no-print-directory -C "$$tmp" CONTROLLER_GEN=$(CONTROLLER_GEN) manifests generate >/dev/null; \
	for d in api config charts; do if ! diff -r $$d "$$tmp/$$d" >/dev/null; then \
		echo "generated files are out of date: run 'make manifests generate' and commit the result"; \
		diff -ru $$d "$$tmp/$$d"; exit 1; fi; done; \
	echo "generated files are up to date"

##@ Build

.PHONY: build
build: ## manager, mcp-server (when present) and cwac-runner, static.
	CGO_ENABLED=0 $(GO) build -o $(LOCALBIN)/manager ./cmd/manager
	CGO_ENABLED=0 $(GO) build -o $(LOCALBIN)/cwac-runner ./cmd/cwac-runner
	CGO_ENABLED=0 $(GO) build -o $(LOCALBIN)/mcp-server ./cmd/mcp-server

IMG ?= cwac-operator:dev
IMAGE_TAR ?= $(LOCALBIN)/images/cwac-operator.tar

.PHONY: image-tar
image-tar: ## The operator image (manager, cwac-runner, mcp-server) as an OCI archive, without a container engine.
	mkdir -p $(LOCALBIN)/image
	for b in manager cwac-runner mcp-server; do \
		CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $(LOCALBIN)/image/$$b ./cmd/$$b || exit 1; done
	$(GO) run ./hack/imagebuild --out $(IMAGE_TAR) --tag $(IMG) --entrypoint /manager --user 65532:65532 \
		--file /manager=$(LOCALBIN)/image/manager --file /cwac-runner=$(LOCALBIN)/image/cwac-runner --file /mcp-server=$(LOCALBIN)/image/mcp-server

.PHONY: fmt vet
fmt:
	$(GO) fmt ./...
vet:
	$(GO) vet ./...

##@ Test

.PHONY: envtest-assets
envtest-assets: ## etcd + kube-apiserver + kubectl for envtest (built once, cached under bin/k8s).
	K8S_VERSION=$(K8S_VERSION) ./hack/envtest-assets.sh

.PHONY: test
test: ## The whole suite: verify, vet, unit, fuzz seeds, runner, envtest.
	./hack/test.sh

.PHONY: run
run: ## Run the operator against the current cluster, or a local dev control plane when none is reachable.
	./hack/run.sh

.PHONY: install
install: manifests ## Install the CRD into the current cluster.
	kubectl apply --server-side -f config/crd/bases

$(CONTROLLER_GEN):
	mkdir -p $(LOCALBIN)
	GOBIN=$(LOCALBIN) $(GO) install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS_VERSION)
	mv $(LOCALBIN)/controller-gen $(CONTROLLER_GEN)
