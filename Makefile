# cwac-operator — build, generate, test. `make help` lists the targets.
SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

LOCALBIN ?= $(CURDIR)/bin
CONTROLLER_TOOLS_VERSION ?= v0.23.0
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
K8S_VERSION ?= 1.37.1
GO ?= go
# The Go tools under hack/ are a module of their own (hack/go.mod), so the
# product does not build with what only tooling needs: every go command for
# them runs in hack/ (go -C), and the paths given to them must be absolute.
HACK_GO = $(GO) -C hack

##@ General

.PHONY: all
all: build ## The default goal: build the binaries.

.PHONY: help
help: ## List the targets with their descriptions.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Generate

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## CRD and RBAC from the API types and +kubebuilder markers.
	$(CONTROLLER_GEN) crd paths="./api/..." output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=manager-role paths="./internal/controller/..." output:rbac:artifacts:config=config/rbac
	$(CONTROLLER_GEN) rbac:roleName=mcp-server-role,fileName=mcp_server_role.yaml paths="./internal/mcpserver/...;./internal/digestsend/..." output:rbac:artifacts:config=config/rbac
	$(MAKE) --no-print-directory chart-sync

.PHONY: chart-sync
chart-sync: ## Copy the generated CRD and RBAC rules into the Helm chart (never edit those copies).
	cp config/crd/bases/*.yaml charts/cwac-operator/files/crds/
	cp config/rbac/role.yaml config/rbac/mcp_server_role.yaml charts/cwac-operator/files/rbac/
	cp config/seccomp/cwac-chrome.json charts/cwac-operator/files/seccomp/
	cp config/admission/*.yaml charts/cwac-operator/files/admission/

.PHONY: generate
generate: $(CONTROLLER_GEN) ## DeepCopy methods.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./..."

.PHONY: docs
docs: ## docs/api.md from the API types (crd-ref-docs, installed into bin/ by hack/tools.sh).
	@crd_ref_docs="$${CRD_REF_DOCS:-$$(./hack/tools.sh crd-ref-docs)}"; \
	"$$crd_ref_docs" --log-level=ERROR --source-path=./api --config=docs/crd-ref-docs/config.yaml \
		--renderer=markdown --templates-dir=docs/crd-ref-docs/templates --output-path=docs/api.md

.PHONY: verify
verify: $(CONTROLLER_GEN) ## Fails if regenerating CRD, RBAC, deepcopy or docs/api.md would change the tree.
	@crd_ref_docs="$$(./hack/tools.sh crd-ref-docs)"; \
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	tar --exclude=./bin --exclude=./.git -cf - . | tar -xf - -C "$$tmp"; \
	$(MAKE) --no-print-directory -C "$$tmp" CONTROLLER_GEN=$(CONTROLLER_GEN) manifests generate >/dev/null; \
	CRD_REF_DOCS="$$crd_ref_docs" $(MAKE) --no-print-directory -C "$$tmp" docs >/dev/null; \
	for d in api config charts docs; do if ! diff -r $$d "$$tmp/$$d" >/dev/null; then \
		echo "generated files are out of date: run 'make manifests generate docs' and commit the result"; \
		diff -ru $$d "$$tmp/$$d"; exit 1; fi; done; \
	echo "generated files are up to date"

##@ Build

.PHONY: build
build: ## manager, mcp-server, cwac-runner and the kubectl-cwac plugin, static, into bin/.
	CGO_ENABLED=0 $(GO) build -o $(LOCALBIN)/manager ./cmd/manager
	CGO_ENABLED=0 $(GO) build -o $(LOCALBIN)/cwac-runner ./cmd/cwac-runner
	CGO_ENABLED=0 $(GO) build -o $(LOCALBIN)/mcp-server ./cmd/mcp-server
	CGO_ENABLED=0 $(GO) build -o $(LOCALBIN)/kubectl-cwac ./cmd/kubectl-cwac

IMG ?= cwac-operator:dev
IMAGE_TAR ?= $(LOCALBIN)/images/cwac-operator.tar

.PHONY: image-tar
image-tar: ## The operator image (manager, cwac-runner, mcp-server) as an OCI archive, without a container engine.
	mkdir -p $(LOCALBIN)/image
	for b in manager cwac-runner mcp-server; do \
		CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $(LOCALBIN)/image/$$b ./cmd/$$b || exit 1; done
	$(HACK_GO) run ./imagebuild --out $(abspath $(IMAGE_TAR)) --tag $(IMG) --entrypoint /manager --user 65532:65532 \
		--file /manager=$(abspath $(LOCALBIN))/image/manager --file /cwac-runner=$(abspath $(LOCALBIN))/image/cwac-runner \
		--file /mcp-server=$(abspath $(LOCALBIN))/image/mcp-server

##@ Release

.PHONY: release
release: ## Publish the tag at HEAD to REGISTRY: multi-arch image, OCI chart, SBOMs, signatures, provenance (docs/releasing.md).
	./hack/release.sh

##@ Lint

.PHONY: fmt vet lint lint-fix
fmt: ## gofmt every package (the product's and the tools' under hack/).
	$(GO) fmt ./...
	$(HACK_GO) fmt ./...
vet: ## go vet every package, the integration-tagged tests included (and the release and upgrade checks').
	$(GO) vet -tags integration,upgrade ./...
	$(HACK_GO) vet -tags integration,release ./...
# golangci-lint checks one module per run: the product's, then the tools'
# from hack/ (the same .golangci.yml, found in the parent directory).
lint: ## golangci-lint (.golangci.yml) over every package, and actionlint over the forge's workflows (both installed into bin/ by hack/tools.sh).
	lint="$$(./hack/tools.sh golangci-lint)"; "$$lint" run ./... && (cd hack && "$$lint" run ./...)
	"$$(./hack/tools.sh actionlint)" -shellcheck= -pyflakes= .github/workflows/*.yml
lint-fix: ## golangci-lint, applying the fixes it can make itself (formatting, imports).
	lint="$$(./hack/tools.sh golangci-lint)"; "$$lint" run --fix ./... && (cd hack && "$$lint" run --fix ./...)

##@ Test

.PHONY: envtest-assets
envtest-assets: ## etcd + kube-apiserver + kubectl for envtest (built once, cached under bin/k8s).
	K8S_VERSION=$(K8S_VERSION) ./hack/envtest-assets.sh

# The fast tier is every test built without the integration build tag. A
# test file that needs more than Go — an envtest API server, npm, python3
# (the stand-in CWAC), a built image, PostgreSQL or a real cluster — starts
# with `//go:build integration` and runs in `make test` (hack/test.sh, which
# also runs this target from a fresh copy with no bin/ and no network). A new
# test that needs one of them and lacks the tag fails here, loudly, rather
# than hiding in the wrong tier.
.PHONY: test-unit
test-unit: ## The fast tier: every test not tagged integration, needing only Go (seconds; a cold build cache first compiles the Kubernetes API types).
	$(GO) test -count=1 ./...
	$(HACK_GO) test -count=1 ./...

.PHONY: test
test: ## The whole suite: verify, vet, unit, golden, runner, envtest, chart, MCP end to end, fuzz, and (as root) the real cluster.
	./hack/test.sh

.PHONY: bench
bench: envtest-assets ## Results read path and queue figures beside in-run baselines, as ratios (data generated under bin/bench; never fails on timings).
	$(HACK_GO) build -o $(abspath $(LOCALBIN))/bench/bench ./bench
	SEAWEEDFS="$${SEAWEEDFS:-$$(./hack/tools.sh seaweedfs)}" \
		$(LOCALBIN)/bench/bench -data $(LOCALBIN)/bench -envtest-assets $(LOCALBIN)/k8s/$(K8S_VERSION)-linux-amd64 $(BENCH_ARGS)

# The pure packages (no cluster, no browser, no network) that mutation
# testing covers; MUTATE_REPORT_ONLY are printed but not held to the
# targets, for a package being rewritten (docs/development.md, "Mutation
# testing"): name such a package there while it is, and take it out once a
# whole run at its new tree is recorded in hack/mutation/verified.txt.
MUTATE_PKGS ?= internal/scanpod internal/resultspath internal/cwacconfig internal/scanjob internal/urlpolicy internal/cwac \
	internal/gate internal/schedule internal/scanstatus \
	internal/results internal/report internal/runner internal/diff internal/wcag internal/shard \
	internal/textcap internal/plainjson internal/scanspec internal/apirefusal internal/netdial internal/websession internal/notify \
	internal/decision internal/pageruns
# Packages reported only while being rewritten (docs/development.md,
# "Mutation testing"): none today.
MUTATE_REPORT_ONLY ?=

.PHONY: mutate
mutate: ## Mutation testing (gremlins) of MUTATE_PKGS: efficacy and coverage per package, at least 90% each.
	MUTATE_PKGS="$(MUTATE_PKGS)" MUTATE_REPORT_ONLY="$(MUTATE_REPORT_ONLY)" ./hack/mutate.sh

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
