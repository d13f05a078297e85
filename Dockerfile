# Build a small image running gobpm-web. The binary is pure Go (no cgo).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o /out/gobpm-web ./cmd/gobpm-web

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/gobpm-web /gobpm-web
VOLUME /data
EXPOSE 8080
# gobpm has no credentials yet: publish the port only behind a trusted proxy.
ENTRYPOINT ["/gobpm-web", "--addr", "0.0.0.0:8080", "--allow-remote", "--db", "/data/gobpm.db"]
