package api

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
)

// defaultFileName names a raw-body deployment without ?name=.
const defaultFileName = "deployment.bpmn"

// deploy handles POST /api/v1/deployments: multipart/form-data with any
// number of "file" parts (other parts are ignored), or one raw XML body
// (application/xml, text/xml or any +xml type) named by ?name=.
func (s *server) deploy(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxDeploymentBytes)

	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil {
		return errorf(kindUnsupportedMediaType, "", "send the models as multipart/form-data file parts or as one application/xml body")
	}
	var files []runtime.File
	switch {
	case mt == "multipart/form-data":
		files, err = readMultipart(r)
	case mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml"):
		files, err = readRawXML(r)
	default:
		return errorf(kindUnsupportedMediaType, "", fmt.Sprintf("Content-Type %q is not supported; send multipart/form-data file parts or one application/xml body", mt))
	}
	if err != nil {
		return err
	}

	res, err := s.svc.Deploy(s.deployGuarded(r.Context()), files)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusCreated, toDeployment(res))
	return nil
}

func readRawXML(r *http.Request) ([]runtime.File, error) {
	name := defaultFileName
	if q := r.URL.Query().Get("name"); q != "" {
		name = baseName(q)
		if name == "" {
			return nil, errorf(kindInvalidRequest, "name", fmt.Sprintf("query parameter name %q is not a file name", q))
		}
	}
	content, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, bodyReadError(err)
	}
	if len(content) == 0 {
		return nil, errorf(kindInvalidRequest, "", "the deployment is empty: send the model XML as the request body")
	}
	return []runtime.File{{Name: name, Content: content}}, nil
}

func readMultipart(r *http.Request) ([]runtime.File, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, errorf(kindInvalidRequest, "", "the multipart body is malformed: "+err.Error())
	}
	var files []runtime.File
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, multipartError(err)
		}
		if part.FormName() != "file" {
			// Lenient: clients may send other fields; only "file" parts deploy.
			_ = part.Close()
			continue
		}
		name := baseName(part.FileName())
		if name == "" {
			name = defaultFileName
			if len(files) > 0 {
				name = fmt.Sprintf("deployment-%d.bpmn", len(files)+1)
			}
		}
		content, err := io.ReadAll(part)
		_ = part.Close()
		if err != nil {
			return nil, multipartError(err)
		}
		if len(content) == 0 {
			return nil, errorf(kindInvalidRequest, "file", fmt.Sprintf("file %q is empty", name))
		}
		files = append(files, runtime.File{Name: name, Content: content})
	}
	if len(files) == 0 {
		return nil, errorf(kindInvalidRequest, "file", "the deployment is empty: send at least one multipart part named \"file\"")
	}
	return files, nil
}

func multipartError(err error) error {
	var me *http.MaxBytesError
	if errors.As(err, &me) {
		return me
	}
	return errorf(kindInvalidRequest, "", "the multipart body is malformed: "+err.Error())
}

// baseName keeps the last element of a client-supplied path (browsers and
// curl may send one), so no directory ever reaches the runtime.
func baseName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSpace(name)
	if name == "." || name == ".." {
		return ""
	}
	return name
}
