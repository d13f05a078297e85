# Build a small image running gobpm-web. The binary is pure Go (no cgo) and
# embeds the cockpit's npm assets, fetched from the lockfile in their own stage.
FROM node:20 AS assets
WORKDIR /src
COPY package.json package-lock.json ./
COPY web/bundle/ web/bundle/
RUN npm ci --no-audit --no-fund
RUN mkdir -p /out && cp -r node_modules/bpmn-js/dist/assets/bpmn-font /out/ && \
    cp node_modules/bpmn-js/dist/bpmn-modeler.production.min.js /out/ && \
    cp node_modules/htmx.org/dist/htmx.min.js \
    node_modules/bpmn-js/dist/bpmn-navigated-viewer.production.min.js \
    node_modules/bpmn-js/dist/assets/bpmn-js.css node_modules/bpmn-js/dist/assets/diagram-js.css \
    node_modules/@bpmn-io/form-js-viewer/dist/assets/form-js.css \
    node_modules/dmn-js/dist/assets/dmn-js-shared.css \
    node_modules/dmn-js/dist/assets/dmn-js-drd.css node_modules/dmn-js/dist/assets/dmn-js-decision-table.css \
    node_modules/dmn-js/dist/assets/dmn-js-literal-expression.css node_modules/dmn-js/dist/assets/dmn-js-boxed-expression.css /out/ && \
    node_modules/.bin/esbuild web/bundle/autolayout.js --bundle --minify --format=iife --outfile=/out/bpmn-auto-layout.min.js && \
    node_modules/.bin/esbuild web/bundle/formviewer.js --bundle --minify --format=iife --outfile=/out/form-js-viewer.min.js && \
    node_modules/.bin/esbuild web/bundle/dmnviewer.js --bundle --minify --format=iife --outfile=/out/dmn-navigated-viewer.min.js

FROM golang:1.26 AS build
# The version the binary reports (--version, the cockpit's footer):
#   docker build --build-arg VERSION=$(git describe --tags --always) .
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=assets /out/ web/static/vendor/
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.Version=${VERSION}" -o /out/gobpm-web ./cmd/gobpm-web
# The gobpm CLI, for scripts run in the container (docker exec … /gobpm).
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.Version=${VERSION}" -o /out/gobpm ./cmd/gobpm
# The data directory, owned by the image's non-root user (65532), so a fresh
# volume mounted there is writable.
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/gobpm-web /gobpm-web
COPY --from=build /out/gobpm /gobpm
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
VOLUME /data
EXPOSE 8080
# Built-in users, groups and tokens: the first start logs a one-time set-up
# token for the cockpit's /setup page (or run "gobpm-web admin create").
# Serve HTTPS with --tls-cert/--tls-key, or set --public-url behind a proxy.
ENTRYPOINT ["/gobpm-web", "--addr", "0.0.0.0:8080", "--auth", "builtin", "--db", "/data/gobpm.db"]
