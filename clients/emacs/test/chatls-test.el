;;; chatls-test.el --- Batch test of chatls.el with eglot and the real server  -*- lexical-binding: t; indent-tabs-mode: nil -*-

;; Run by clients/emacs/test/run.sh:
;;   emacs --batch -l chatls-test.el      (not -Q: Debian's elpa-eglot loads at startup)
;; Env: CHATLS_BIN, CHATLS_WS (workspace holding approve-echo.chat), CHATLS_EL, CHATLS_LOG.
;; It acts as a user: open the file, read the preview, press C-c C-a with
;; point in the tool call, see the output written, press C-c C-c, save.

;;; Code:

(require 'package)
(package-initialize)
(require 'eglot)
(require 'flymake)
(require 'cl-lib)
(load (getenv "CHATLS_EL") nil t)

(defvar chatls-test-passed 0)
(defvar chatls-test-failed 0)

(defun chatls-test-check (name ok &optional detail)
  (if ok (cl-incf chatls-test-passed) (cl-incf chatls-test-failed))
  (princ (format "%s %s%s\n" (if ok "PASS" "FAIL") name
                 (if (or ok (null detail)) "" (format ": %S" detail))))
  ok)

(defun chatls-test-finish ()
  (princ (format "emacs: %d passed, %d failed\n" chatls-test-passed chatls-test-failed))
  (kill-emacs (if (zerop chatls-test-failed) 0 1)))

(defun chatls-test-wait (seconds pred)
  "Process server messages until PRED holds or SECONDS pass.
Batch Emacs never goes idle, so eglot's idle timer that sends
didChange never fires: send pending changes here instead."
  (let ((end (+ (float-time) seconds)) ok)
    (while (and (not (setq ok (funcall pred))) (< (float-time) end))
      (when (and (eglot-managed-p) eglot--change-idle-timer)
        (cancel-timer eglot--change-idle-timer)
        (setq eglot--change-idle-timer nil)
        (eglot--signal-textDocument/didChange))
      (accept-process-output nil 0.05))
    ok))

(defun chatls-test-line-start (regexp)
  (save-excursion (goto-char (point-min)) (re-search-forward regexp) (line-beginning-position)))

(setq chatls-program (list (getenv "CHATLS_BIN") "--log-file" (getenv "CHATLS_LOG"))
      eglot-sync-connect 10
      eglot-autoshutdown nil
      ;; Left at its default on purpose: chatls.el must not need it changed.
      eglot-confirm-server-initiated-edits 'confirm)

;; Fail instead of hanging if anything asks a question in batch.
(fset 'y-or-n-p (lambda (prompt) (error "Unexpected question: %s" prompt)))

(let* ((file (expand-file-name "approve-echo.chat" (getenv "CHATLS_WS")))
       (on-disk (with-temp-buffer (insert-file-contents file) (buffer-string))))
  (find-file file)
  (chatls-test-check "major mode is chatls-mode" (eq major-mode 'chatls-mode) major-mode)
  (font-lock-ensure)
  (chatls-test-check "font-lock: role marker"
                     (eq (get-text-property (chatls-test-line-start "^@Assistant:") 'face) 'chatls-role-face))
  (chatls-test-check "font-lock: placeholder status"
                     (save-excursion (goto-char (point-min)) (re-search-forward "status=\\(pending\\)")
                                     (memq 'chatls-status-face (ensure-list (get-text-property (match-beginning 1) 'face)))))

  (condition-case err
      (apply #'eglot (eglot--guess-contact))
    (error (chatls-test-check "eglot starts chatls" nil err) (chatls-test-finish)))
  (let ((server (eglot-current-server)))
    (chatls-test-check "eglot manages the buffer with chatls-eglot-server"
                       (and server (eq (eieio-object-class server) 'chatls-eglot-server)) server)
    (chatls-test-check "language id is chat" (equal (eglot--language-id server) "chat")))

  (chatls-test-wait 8 (lambda () (flymake-diagnostics)))
  (let ((diags (flymake-diagnostics)))
    (chatls-test-check "pending approval diagnostic (Information -> eglot-note)"
                       (cl-some (lambda (d) (eq (flymake-diagnostic-type d) 'eglot-note)) diags)
                       (mapcar #'flymake-diagnostic-text diags)))
  (chatls-test-check "opening the file changed nothing"
                     (and (not (buffer-modified-p)) (equal (buffer-string) on-disk)))

  ;; eglot 1.9 has no inlay hints: ask as a newer client would.
  (let* ((hints (jsonrpc-request (eglot--current-server-or-lose) :textDocument/inlayHint
                                 (list :textDocument (eglot--TextDocumentIdentifier)
                                       :range (list :start '(:line 0 :character 0)
                                                    :end (list :line (count-lines (point-min) (point-max)) :character 0)))))
         (labels (mapcar (lambda (h) (let ((l (plist-get h :label)))
                                       (if (stringp l) l (mapconcat (lambda (p) (plist-get p :value)) l ""))))
                         hints)))
    (chatls-test-check "inlay hint previews the call"
                       (cl-some (lambda (l) (string-prefix-p "bash: $ echo hello-from-chatls" l)) labels) labels))

  (chatls-test-wait 5 (lambda () chatls--status))
  (chatls-test-check "mode line shows the pushed status with the key"
                     (equal (chatls-mode-line) " [1 call waits for approval (press C-c C-a (approve))]") (chatls-mode-line))
  ;; Hover through eldoc: the page arrives, the echo area gets one line of it.
  (goto-char (chatls-test-line-start "\"command\":\"echo hello-from-chatls\""))
  (let (docs shown)
    (let ((eldoc-display-functions (list (lambda (d _interactive) (setq docs d)))))
      (eldoc-print-current-symbol-info t)
      (chatls-test-wait 5 (lambda () docs)))
    (cl-letf (((symbol-function 'eldoc--message) (lambda (m) (setq shown m))))
      (let ((this-command nil) (last-command 'next-line))
        (eldoc-display-in-echo-area docs nil)))
    (chatls-test-check "hover: a page in eldoc's buffer, one line in the echo area"
                       (and (string-match-p "\n" (caar docs)) (stringp shown) (not (string-match-p "\n" shown))
                            (string-match-p "bash" shown))
                       (list :docs docs :echo shown)))
  ;; Explain: a readable document in its own buffer, not a JSON line.
  (goto-char (chatls-test-line-start "\"command\":\"echo hello-from-chatls\""))
  (let ((buf (call-interactively (key-binding (kbd "C-c C-e")))))
    (chatls-test-check "C-c C-e shows the decision as a document"
                       (and (bufferp buf) (with-current-buffer buf
                                            (string-prefix-p "# `bash` (`toolu_01A`) asks for your approval" (buffer-string))))
                       (and (bufferp buf) (with-current-buffer buf (buffer-string)))))

  ;; Point inside the tool use's JSON: the Approve action is found at its placeholder.
  (goto-char (chatls-test-line-start "\"command\":\"echo hello-from-chatls\""))
  (let ((titles (mapcar (lambda (a) (plist-get a :title)) (chatls--actions-here "toolu_01A"))))
    (chatls-test-check "code actions Approve and Reject"
                       (and (cl-some (lambda (tl) (string-prefix-p "Approve bash: $ echo hello-from-chatls" tl)) titles)
                            (cl-some (lambda (tl) (string-prefix-p "Reject bash" tl)) titles))
                       titles))
  (condition-case err
      (call-interactively (key-binding (kbd "C-c C-a")))
    (error (chatls-test-check "C-c C-a runs chatls-approve" nil err)))
  (chatls-test-check "C-c C-a: the result is written into the buffer"
                     (chatls-test-wait 15 (lambda () (string-match-p "\nhello-from-chatls\n" (buffer-string))))
                     (buffer-string))
  (chatls-test-check "no placeholder left" (not (string-match-p "^```flemma:" (buffer-string))))
  (chatls-test-wait 5 (lambda () (equal chatls--status "ready to send (press C-c C-c (next step))")))
  (chatls-test-check "mode line: ready to send after the run"
                     (equal (chatls-mode-line) " [ready to send (press C-c C-c (next step))]") (chatls-mode-line))

  ;; Phase 3: the next step sends to the (scripted) model; the answer streams in.
  (let ((r (call-interactively (key-binding (kbd "C-c C-c")))))
    (chatls-test-check "C-c C-c sends the conversation to the model"
                       (and (equal (plist-get r :phase) "send") (equal (plist-get r :message) "sending")) r))
  (chatls-test-check "the answer is written into the buffer"
                     (chatls-test-wait 15 (lambda () (string-match-p "Hello from the scripted model\\." (buffer-string))))
                     (buffer-string))
  (chatls-test-check "mode line: your turn again"
                     (chatls-test-wait 5 (lambda () (string-match-p "write your question under the last @You:" (chatls-mode-line))))
                     (chatls-mode-line))

  (save-buffer)
  (chatls-test-check "saved file holds the result and the answer"
                     (with-temp-buffer (insert-file-contents file)
                                       (string-match-p "\nhello-from-chatls\n\\(.\\|\n\\)*Hello from the scripted model" (buffer-string))))
  (ignore-errors (eglot-shutdown (eglot--current-server-or-lose)))

  ;; chatls missing: one warning naming the setting, no error, the mode line says so.
  (let ((chatls-program '("/nonexistent/chatls"))
        (other (expand-file-name "other.chat" (file-name-directory file))))
    (with-temp-file other (insert "@You:\nhi\n"))
    (with-current-buffer (find-file-noselect other)
      (condition-case err
          (progn (chatls-eglot-ensure) (chatls-eglot-ensure))
        (error (chatls-test-check "missing binary: no error" nil err)))
      (let ((warning (with-current-buffer (get-buffer-create "*Warnings*") (buffer-string))))
        (chatls-test-check "missing binary: one warning naming chatls-program"
                           (and (string-match-p "`/nonexistent/chatls' is not on exec-path" warning)
                                (string-match-p "chatls-program" warning)
                                (= 1 (let ((n 0) (start 0))
                                       (while (string-match "is not on exec-path" warning start)
                                         (setq n (1+ n) start (match-end 0)))
                                       n)))
                           warning))
      (chatls-test-check "missing binary: the mode line says not running"
                         (equal (chatls-mode-line) " [not running: /nonexistent/chatls not found]") (chatls-mode-line))))
  (chatls-test-finish))

;;; chatls-test.el ends here
