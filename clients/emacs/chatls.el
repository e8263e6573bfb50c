;;; chatls.el --- Approve LLM tool calls in .chat files with chatls  -*- lexical-binding: t; indent-tabs-mode: nil -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1"))
;; Keywords: languages, tools
;; URL: https://github.com/chatls/chatls

;;; Commentary:

;; A major mode for Flemma-style `.chat' conversations and its registration
;; with the chatls language server, for eglot (1.9+) and lsp-mode.  The server
;; does the work -- previews, Approve/Reject code actions, running approved
;; tools and writing their results back -- this file only adds font-lock,
;; key bindings and the glue.
;;
;;   (require 'chatls)
;;   (add-hook 'chatls-mode-hook #'eglot-ensure)   ; or #'lsp
;;
;; Keys in `chatls-mode':
;;   C-c C-c  next step (chatls.advance)     C-c C-a  approve call at point
;;   C-c C-k  reject call at point           M-RET    run call at point
;;   C-c C-s  cancel the running call        C-c C-e  explain the decision
;;   C-c M-a  approve all pending            C-c C-t  list tools
;;   C-c C-n  next pending call              C-c C-p  previous pending call
;; Approve and reject act on the call at point when it waits for approval,
;; else on the nearest one that does (the echo area says which).

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'url-util)
(require 'json)

(declare-function eglot--current-server-or-lose "eglot")
(declare-function eglot-managed-p "eglot")
(declare-function eglot-code-actions "eglot")
(declare-function eglot--apply-workspace-edit "eglot")
(declare-function eglot-execute "eglot")
(declare-function eglot--signal-textDocument/didChange "eglot")
(declare-function jsonrpc-request "jsonrpc")
(declare-function lsp-request "lsp-mode")
(declare-function lsp-execute-code-action "lsp-mode")
(declare-function lsp-code-actions-at-point "lsp-mode")
(declare-function lsp-register-client "lsp-mode")
(declare-function lsp-stdio-connection "lsp-mode")
(declare-function make-lsp-client "lsp-mode")
(declare-function lsp-activate-on "lsp-mode")
(defvar eglot-server-programs)
(defvar eglot-confirm-server-initiated-edits)
(defvar eglot-confirm-server-edits)
(defvar lsp-language-id-configuration)
(defvar lsp-mode)
(defvar native-comp-async-report-warnings-errors)
(declare-function jsonrpc-async-request "jsonrpc")
(declare-function lsp-request-async "lsp-mode")

;; Emacs 28+ with native compilation compiles eglot, jsonrpc and this file
;; in the background on first use and pops up a *Warnings* window for the
;; compiler's warnings, which are no concern of a user's.  Keep them in the
;; log only -- unless the user chose a setting of their own.
(when (and (boundp 'native-comp-async-report-warnings-errors)
           (eq native-comp-async-report-warnings-errors t))
  (setq native-comp-async-report-warnings-errors 'silent))

(defgroup chatls nil
  "Approve and run the tool calls in .chat conversations."
  :group 'tools
  :prefix "chatls-")

(defcustom chatls-program '("chatls")
  "Command line that starts the chatls language server."
  :type '(repeat string))

(defcustom chatls-settings nil
  "Settings for chatls (SPEC section 4), as a plist.
Sent as initializationOptions and as the answer to
workspace/configuration for section \"chatls\".  Example:
  (:tools (:autoApprove [\"$default\" \"bash(go test *)\"]))
Editor settings count as user configuration on the server."
  :type 'sexp)

(defcustom chatls-confirm-server-edits nil
  "Whether to ask before chatls writes a tool result into the buffer.
chatls only writes results for calls you approved (or your policy
approves), as versioned edits located by tool ID; asking for each
one would stall the approval cycle, so the default is not to ask.
Applies to chatls only, whatever `eglot-confirm-server-initiated-edits'
says for other servers."
  :type 'boolean)

;;;; Font-lock

(defface chatls-role-face '((t :inherit font-lock-keyword-face :weight bold))
  "Face for role markers such as @You:.")
(defface chatls-tool-header-face '((t :inherit font-lock-builtin-face :weight bold))
  "Face for **Tool Use:** and **Tool Result:**.")
(defface chatls-tool-name-face '((t :inherit font-lock-function-name-face))
  "Face for tool names.")
(defface chatls-tool-id-face '((t :inherit font-lock-constant-face))
  "Face for tool call IDs.")
(defface chatls-status-face '((t :inherit font-lock-warning-face))
  "Face for placeholder statuses such as pending.")
(defface chatls-fence-face '((t :inherit shadow))
  "Face for fence lines.")

(defconst chatls--statuses "pending\\|approved\\|rejected\\|reject\\|denied\\|deny\\|aborted\\|error")

(defconst chatls-font-lock-keywords
  `(("^@\\w+:[ \t]*$" . 'chatls-role-face)
    ("^\\(\\*\\*Tool Use:\\*\\*\\)[ \t]*`\\([^`\n]+\\)`[ \t]*(`\\([^`\n]+\\)`)"
     (1 'chatls-tool-header-face) (2 'chatls-tool-name-face) (3 'chatls-tool-id-face))
    (,(concat "^\\(\\*\\*Tool Result:\\*\\*\\)[ \t]*`\\([^`\n]+\\)`"
              "\\(?:[ \t]*(\\(?:status=\\)?\\(" chatls--statuses "\\)[^)\n]*)\\)?")
     (1 'chatls-tool-header-face) (2 'chatls-tool-id-face) (3 'chatls-status-face nil t))
    (,(concat "^```+flemma:\\(?:tool\\)?.*?\\(?:status=\\)?\\(" chatls--statuses "\\)")
     (0 'chatls-fence-face) (1 'chatls-status-face t))
    ("^```+.*$" . 'chatls-fence-face)
    ("^</?thinking\\b.*$" . 'font-lock-comment-face)
    ("^<!-- flemma:aborted:.*-->[ \t]*$" . 'font-lock-warning-face)
    ("{{.*?}}\\|{%.*?%}" . 'font-lock-preprocessor-face)
    ("@\\.\\.?/[^ \t\n]+" . 'link))
  "Font-lock rules for `chatls-mode' (SPEC section 1).")

;;;; Reading the buffer: which call is at point, where its placeholder is

(defconst chatls--use-re "^\\*\\*Tool Use:\\*\\*[ \t]*`\\([^`\n]+\\)`[ \t]*(`\\([^`\n]+\\)`)")
(defconst chatls--result-re "^\\*\\*Tool Result:\\*\\*[ \t]*`\\([^`\n]+\\)`")

(defun chatls--scan (fn)
  "Call FN with (LINE-START LINE IN-FENCE) for each line, fence-aware.
An opener is 3+ backticks at column 0 with no other backtick; a closer
is backticks only and at least as long (SPEC section 1).  FN returning
non-nil stops the scan."
  (save-excursion
    (save-restriction
      (widen)
      (goto-char (point-min))
      (let ((open nil) (done nil))
        (while (and (not done) (not (eobp)))
          (let* ((bol (point))
                 (line (buffer-substring-no-properties bol (line-end-position))))
            (if open
                (progn
                  (when (and (string-match "\\`\\(`+\\)[ \t]*\\'" line)
                             (>= (length (match-string 1 line)) open))
                    (setq open nil))
                  (setq done (funcall fn bol line t)))
              (setq done (funcall fn bol line nil))
              (when (string-match "\\`\\(```+\\)[^`]*\\'" line)
                (setq open (length (match-string 1 line))))))
          (forward-line 1))))))

(defun chatls-tool-id-at-point ()
  "The ID of the tool call whose block holds point, or nil."
  (let ((pos (line-beginning-position)) id)
    (chatls--scan
     (lambda (bol line in-fence)
       (cond ((> bol pos) t)
             (in-fence nil)
             ((string-match "\\`@\\w+:[ \t]*\\'" line) (setq id nil))
             ((string-match chatls--use-re line) (setq id (match-string 2 line)) nil)
             ((string-match chatls--result-re line) (setq id (match-string 1 line)) nil))))
    id))

(defun chatls--placeholder-opener (id)
  "Position of the fence opener of ID's result block, or nil."
  (let (header found)
    (chatls--scan
     (lambda (bol line in-fence)
       (cond (header
              (cond ((and (not in-fence) (string-blank-p line)) nil)
                    ((string-prefix-p "```" line) (setq found bol) t)
                    (t (setq header nil))))
             ((and (not in-fence) (string-match chatls--result-re line)
                   (equal (match-string 1 line) id))
              (setq header bol) nil))))
    found))

(defun chatls-counts ()
  "Return (PENDING . APPROVED): placeholders waiting for you, and running."
  (let ((pending 0) (approved 0) header)
    (chatls--scan
     (lambda (_bol line in-fence)
       (cond (in-fence nil)
             ((string-match (concat chatls--result-re "[ \t]*\\(.*\\)") line)
              (setq header (list (match-string 2 line))) nil)
             ((and header (not (string-blank-p line)))
              (let ((s (concat (car header) " " line)))
                (cond ((string-match "(\\(?:status=\\)?pending\\b\\|status=pending\\|flemma:pending" s)
                       (cl-incf pending))
                      ((string-match "(\\(?:status=\\)?approved\\b\\|status=approved\\|flemma:approved" s)
                       (cl-incf approved))))
              (setq header nil)))))
    (cons pending approved)))

(defun chatls-pending-calls ()
  "The calls that wait for approval, in buffer order.
Each is a plist (:id ID :name NAME :header POS :opener POS :line N):
POS of its **Tool Result:** header and of its fence line, N the
header's line number."
  (let (names out header)
    (chatls--scan
     (lambda (bol line in-fence)
       (cond (in-fence nil)
             ((string-match chatls--use-re line)
              (push (cons (match-string 2 line) (match-string 1 line)) names) nil)
             ((string-match (concat chatls--result-re "[ \t]*\\(.*\\)") line)
              (setq header (list :id (match-string 1 line) :header bol
                                 :suffix (match-string 2 line)))
              nil)
             ((and header (not (string-blank-p line)))
              (when (string-match-p "(\\(?:status=\\)?pending\\b\\|status=pending\\|flemma:pending"
                                    (concat (plist-get header :suffix) " " line))
                (push (list :id (plist-get header :id) :header (plist-get header :header)
                            :opener (and (string-prefix-p "```" line) bol))
                      out))
              (setq header nil)))))
    (mapcar (lambda (p)
              (append p (list :name (or (cdr (assoc (plist-get p :id) names)) "call")
                              :line (line-number-at-pos (plist-get p :header)))))
            (nreverse out))))

(defun chatls--nearest-pending ()
  "The pending call closest to point (one above wins a tie), or nil."
  (let ((here (line-number-at-pos)) best)
    (dolist (p (chatls-pending-calls) best)
      (when (or (null best) (< (abs (- (plist-get p :line) here))
                               (abs (- (plist-get best :line) here))))
        (setq best p)))))

(defun chatls--jump-pending (step)
  "Move to the fence line of the next (STEP 1) or previous (-1) pending call."
  (let* ((all (chatls-pending-calls))
         (list (if (> step 0) all (reverse all)))
         (here (line-beginning-position))
         (at (lambda (p) (or (plist-get p :opener) (plist-get p :header)))))
    (unless all (user-error "chatls: no call waits for approval"))
    (goto-char (funcall at (or (cl-find-if (lambda (p) (if (> step 0) (> (funcall at p) here) (< (funcall at p) here)))
                                           list)
                               (car list))))))

(defun chatls-next-pending ()
  "Go to the next call that waits for approval (wrapping around)."
  (interactive)
  (chatls--jump-pending 1))

(defun chatls-previous-pending ()
  "Go to the previous call that waits for approval (wrapping around)."
  (interactive)
  (chatls--jump-pending -1))

;;;; Talking to the server through eglot or lsp-mode

(defun chatls--uri ()
  "The file URI of the current buffer, as the LSP clients send it."
  (concat "file://" (url-hexify-string (expand-file-name buffer-file-name) url-path-allowed-chars)))

(defun chatls--eglot-p ()
  (and (fboundp 'eglot-managed-p) (eglot-managed-p)))

(defun chatls--request (method params)
  "Send METHOD with PARAMS to this buffer's chatls server; return the result."
  (cond ((chatls--eglot-p)
         ;; eglot sends didChange from an idle timer; a command such as
         ;; chatls.advance must see the text as it is now.
         (eglot--signal-textDocument/didChange)
         (jsonrpc-request (eglot--current-server-or-lose) method params))
        ((bound-and-true-p lsp-mode)
         (lsp-request (substring (symbol-name method) 1) params))
        (t (user-error "chatls: no language server in this buffer (M-x eglot or M-x lsp)"))))

(defun chatls--command (command args)
  "Run the server COMMAND with the argument object ARGS."
  (chatls--request :workspace/executeCommand (list :command command :arguments (vector args))))

(defun chatls--get (obj key)
  "KEY (a string) of the JSON object OBJ, a plist or a hash table."
  (if (hash-table-p obj) (gethash key obj) (plist-get obj (intern (concat ":" key)))))

(defun chatls--call-id ()
  (or (chatls-tool-id-at-point) (user-error "chatls: point is not in a tool call")))

(defun chatls--actions-here (id)
  "The server's code actions for call ID.
Asked at point when point is in ID's result block, else at its placeholder."
  (save-excursion
    (let ((opener (chatls--placeholder-opener id)))
      (when (and opener (< (point) (chatls--result-header-pos id)))
        (goto-char opener)))
    (cond ((chatls--eglot-p) (eglot-code-actions (point) (point)))
          ((bound-and-true-p lsp-mode) (append (lsp-code-actions-at-point) nil)))))

(defun chatls--result-header-pos (id)
  "Position of ID's **Tool Result:** header, or `point-max'."
  (let (pos)
    (chatls--scan (lambda (bol line in-fence)
                    (when (and (not in-fence) (string-match chatls--result-re line)
                               (equal (match-string 1 line) id))
                      (setq pos bol))))
    (or pos (point-max))))

(defun chatls--edit-reporter-p (reporter)
  "Whether REPORTER is eglot's \"applying N edits\" progress reporter."
  (let ((text (ignore-errors (aref (cdr reporter) 3))))
    (and (stringp text) (string-prefix-p "[eglot] applying " text))))

(defmacro chatls--quietly (&rest body)
  "Run BODY without eglot's messages about each edit it applies.
eglot says \"[eglot] applying N edits to `FILE'...done\" and \"Edit
successful!\" for every edit; chatls edits the buffer many times a
second while an answer streams, and the mode line says what happens.
Other messages, and errors, still show."
  `(cl-letf* ((orig-message (symbol-function 'eglot--message))
              ((symbol-function 'eglot--message)
               (lambda (format &rest args)
                 (unless (equal format "Edit successful!") (apply orig-message format args))))
              (orig-update (symbol-function 'progress-reporter-do-update))
              ((symbol-function 'progress-reporter-do-update)
               (lambda (reporter &rest args)
                 (unless (chatls--edit-reporter-p reporter) (apply orig-update reporter args))))
              (orig-done (symbol-function 'progress-reporter-done))
              ((symbol-function 'progress-reporter-done)
               (lambda (reporter)
                 (unless (chatls--edit-reporter-p reporter) (funcall orig-done reporter)))))
     ,@body))

(defun chatls--apply-action (action)
  "Apply the code ACTION: its edit, then its command."
  (chatls--quietly (chatls--apply-action-1 action)))

(defun chatls--apply-action-1 (action)
  "Apply the code ACTION: its edit, then its command."
  (cond ((and (chatls--eglot-p) (fboundp 'eglot-execute))
         (eglot-execute (eglot--current-server-or-lose) action))
        ((chatls--eglot-p)
         (let ((edit (chatls--get action "edit")) (cmd (chatls--get action "command")))
           (when edit (eglot--apply-workspace-edit edit))
           (when cmd
             (chatls--request :workspace/executeCommand
                              (list :command (chatls--get cmd "command")
                                    :arguments (or (chatls--get cmd "arguments") []))))))
        (t (lsp-execute-code-action action))))

(defun chatls--target (verb)
  "The call an approve or reject acts on, as (ID . POS).
The call at point when it waits for approval, else the nearest one that
does (the echo area says which, with VERB), else the call at point.
POS is where to ask for its actions (nil: at point)."
  (let* ((id (chatls-tool-id-at-point))
         (pending (chatls-pending-calls)))
    (if (and id (cl-find id pending :key (lambda (p) (plist-get p :id)) :test #'equal))
        (cons id nil)
      (let ((near (chatls--nearest-pending)))
        (cond (near
               (when verb
                 (message "chatls: %s %s %s (line %d)" verb (plist-get near :name)
                          (plist-get near :id) (plist-get near :line)))
               (cons (plist-get near :id) (or (plist-get near :opener) (plist-get near :header))))
              (id (cons id nil))
              (t (user-error "chatls: no call waits for approval")))))))

(defun chatls--act (regexp &optional except verb)
  "Apply the first code action whose title matches REGEXP (not EXCEPT).
For the call `chatls--target' picks; VERB says what is done."
  (let* ((target (chatls--target verb))
         (id (car target))
         (action (cl-find-if (lambda (a)
                               (let ((title (chatls--get a "title")))
                                 (and (string-match-p regexp title)
                                      (not (and except (string-match-p except title))))))
                             (save-excursion
                               (when (cdr target) (goto-char (cdr target)))
                               (chatls--actions-here id)))))
    (unless action (user-error "chatls: no such action for %s here" id))
    (chatls--apply-action action)
    (chatls--get action "title")))

;;;; Commands

(defun chatls-advance ()
  "Take the next step of the approval cycle (chatls.advance).
The message says what the step did; the counts are the mode line's,
which the server pushes once the step's edits have landed."
  (interactive)
  (let* ((r (chatls--command "chatls.advance" (list :uri (chatls--uri))))
         (phase (chatls--get r "phase"))
         (why (chatls--get r "message")))
    (message "chatls: %s"
             (cond ((equal phase "categorize") "placeholders inserted")
                   ((equal phase "execute") "running what is approved")
                   ((and (equal phase "send") (equal why "sending")) "sending to the model")
                   ((and (equal phase "send") why (not (equal why "ready to send"))) (concat "ready to send; " why))
                   ((equal phase "send") "ready to send")
                   (why why)
                   (t (string-trim (chatls-mode-line) " \\[" "\\]"))))
    r))

(defun chatls-approve ()
  "Approve the call at point, else the nearest pending one (Approve code action)."
  (interactive)
  (chatls--act "\\`Approve " "\\`Approve all " "approving"))

(defun chatls-reject ()
  "Reject the call at point, else the nearest pending one (Reject code action)."
  (interactive)
  (chatls--act "\\`Reject " "\\`Reject all " "rejecting"))

(defun chatls-approve-all ()
  "Approve every pending call (the server's Approve all code action)."
  (interactive)
  (chatls--act "\\`Approve all "))

(defun chatls-run ()
  "Run or resolve the tool call at point now (chatls.run)."
  (interactive)
  (chatls--command "chatls.run" (list :uri (chatls--uri) :id (chatls--call-id))))

(defvar chatls--last-cancel nil
  "When the server last answered a cancel (`float-time'), for tests.")

(defun chatls-cancel ()
  "Stop the tool at point, or, outside a tool call, the answer being written.
Both go through chatls.cancel; a stopped answer keeps what arrived."
  (interactive)
  (let* ((id (chatls-tool-id-at-point))
         (params (list :command "chatls.cancel"
                       :arguments (vector (if id (list :uri (chatls--uri) :id id) (list :uri (chatls--uri))))))
         (done (lambda (&rest _)
                 (setq chatls--last-cancel (float-time))
                 (message "chatls: %s" (if id (concat "cancelled " id) "stopped the answer"))))
         (failed (lambda (err) (message "chatls: cancel failed: %s" (or (chatls--get err "message") err)))))
    ;; Asynchronous: Emacs stays responsive whatever the server does, and
    ;; the answer's last edits land while the request is out.
    (cond ((chatls--eglot-p)
           (eglot--signal-textDocument/didChange)
           (jsonrpc-async-request (eglot--current-server-or-lose) :workspace/executeCommand params
                                  :success-fn done
                                  :error-fn (lambda (e) (funcall failed (plist-get e :message)))))
          ((bound-and-true-p lsp-mode)
           (lsp-request-async "workspace/executeCommand" params done
                              :error-handler (lambda (e) (funcall failed e))))
          (t (user-error "chatls: no language server in this buffer (M-x eglot or M-x lsp)")))))

(defun chatls--show (title result)
  "Show the server's markdown document in RESULT in the buffer *chatls TITLE*."
  (let ((text (or (and (not (stringp result)) (chatls--get result "markdown"))
                  (if (stringp result) result (json-encode result)))))
    (with-current-buffer (get-buffer-create (format "*chatls %s*" title))
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert text)
        (goto-char (point-min))
        (if (fboundp 'markdown-view-mode) (markdown-view-mode) (special-mode)))
      (display-buffer (current-buffer))
      (current-buffer))))

(defun chatls-explain ()
  "Show why the policy decided what it did for the call at point (chatls.explain)."
  (interactive)
  (chatls--show "explain" (chatls--command "chatls.explain" (list :uri (chatls--uri) :id (chatls--call-id) :format "markdown"))))

(defun chatls-list-tools ()
  "Show the tools chatls offers, with their inputs (chatls.listTools)."
  (interactive)
  (chatls--show "tools" (chatls--command "chatls.listTools" (list :uri (chatls--uri) :format "markdown"))))

(defvar-local chatls--status nil
  "The server's last chatls/status text for this buffer.")

(defun chatls--on-status (uri text)
  "Store TEXT, the status the server pushed for URI, and show it."
  (dolist (buf (buffer-list))
    (with-current-buffer buf
      (when (and (derived-mode-p 'chatls-mode) buffer-file-name (equal (chatls--uri) uri))
        (setq chatls--status text)
        (force-mode-line-update)))))

(defun chatls-mode-line ()
  "Mode-line text: the status the server pushes (what waits, what runs),
or the buffer's own count before the server's first word."
  (cond (chatls--status (format " [%s]" chatls--status))
        (t (let ((c (chatls-counts)))
             (if (and (zerop (car c)) (zerop (cdr c))) ""
               (format " [%d pending, %d running]" (car c) (cdr c)))))))

(defconst chatls--key-names
  '(:advance "C-c C-c" :approve "C-c C-a" :reject "C-c C-k" :approveAll "C-c M-a"
    :run "M-RET" :cancel "C-c C-s" :explain "C-c C-e"
    :nextPending "C-c C-n" :prevPending "C-c C-p")
  "The keys of `chatls-mode-map', as the server's messages name them.")

(defun chatls--init-options ()
  "`chatls-settings' with the key names added, for the server's messages."
  (let ((s chatls-settings))
    (cond ((hash-table-p s)
           (let ((copy (copy-hash-table s)))
             (unless (gethash "keys" copy) (puthash "keys" chatls--key-names copy))
             copy))
          ((plist-get s :keys) s)
          (t (append (list :keys chatls--key-names) s)))))

(defun chatls-eglot-ensure ()
  "Start eglot for this buffer, or say once what is missing.
Use it in `chatls-mode-hook' instead of `eglot-ensure': when the
server is not on `exec-path' it says which setting fixes that,
instead of an error from a post-command hook."
  (if (executable-find (car chatls-program))
      (eglot-ensure)
    (setq chatls--status (format "not running: %s not found" (car chatls-program)))
    (unless (get 'chatls-program 'chatls-told)
      (put 'chatls-program 'chatls-told t)
      (display-warning 'chatls
                       (format "The server `%s' is not on exec-path. Install it (go install ./cmd/chatls in the chatls checkout) or set `chatls-program' to its full path, e.g. (setq chatls-program '(\"/home/me/go/bin/chatls\"))."
                               (car chatls-program))
                       :error))))

;;;; The major mode

(defvar chatls-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'chatls-advance)
    (define-key map (kbd "C-c C-a") #'chatls-approve)
    (define-key map (kbd "C-c C-k") #'chatls-reject)
    (define-key map (kbd "C-c M-a") #'chatls-approve-all)
    (define-key map (kbd "M-RET") #'chatls-run)
    (define-key map (kbd "C-c C-s") #'chatls-cancel)
    (define-key map (kbd "C-c C-e") #'chatls-explain)
    (define-key map (kbd "C-c C-t") #'chatls-list-tools)
    (define-key map (kbd "C-c C-h") #'eldoc-doc-buffer)
    (define-key map (kbd "C-c C-n") #'chatls-next-pending)
    (define-key map (kbd "C-c C-p") #'chatls-previous-pending)
    map)
  "Keymap for `chatls-mode'.")

;;;###autoload
(define-derived-mode chatls-mode text-mode "Chat"
  "Major mode for .chat conversations served by chatls.
\\{chatls-mode-map}"
  (setq-local font-lock-defaults '(chatls-font-lock-keywords t))
  (setq-local comment-start "<!-- ")
  (setq-local comment-end " -->")
  (setq-local mode-line-process '(:eval (chatls-mode-line)))
  ;; A call's hover is a page (tool, input, decision, status): the echo area
  ;; shows its first line only, and C-c C-h (`eldoc-doc-buffer') the page.
  (setq-local eldoc-echo-area-use-multiline-p nil))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.chat\\'" . chatls-mode))

;;;; eglot

(defun chatls--eglot-contact (_interactive)
  (cons 'chatls-eglot-server chatls-program))

(with-eval-after-load 'eglot
  ;; A server class of our own scopes the overrides below to chatls.  The
  ;; class only exists once eglot loads, hence `with-no-warnings'.
  (with-no-warnings
    (defclass chatls-eglot-server (eglot-lsp-server) ()
      :documentation "chatls, the approval server for .chat files.")

    (cl-defmethod eglot-initialization-options ((_server chatls-eglot-server))
      (chatls--init-options))

    ;; The document's status, pushed by the server: the mode line shows it.
    (cl-defmethod eglot-handle-notification
      ((_server chatls-eglot-server) (_method (eql chatls/status)) &key uri text &allow-other-keys)
      (chatls--on-status uri text))

    ;; Results arrive as workspace/applyEdit; eglot asks before each by default.
    (cl-defmethod eglot-handle-request
      ((_server chatls-eglot-server) (_method (eql workspace/applyEdit)) &rest _)
      (let ((eglot-confirm-server-initiated-edits (and chatls-confirm-server-edits 'confirm))
            (eglot-confirm-server-edits (and chatls-confirm-server-edits t)))
        (chatls--quietly (cl-call-next-method))))

    ;; workspace/configuration for section "chatls" answers `chatls-settings'
    ;; when set; otherwise eglot's own `eglot-workspace-configuration' applies.
    (cl-defmethod eglot-handle-request
      ((_server chatls-eglot-server) (_method (eql workspace/configuration)) &rest args)
      (if (null chatls-settings)
          (cl-call-next-method)
        (apply #'vector
               (mapcar (lambda (item)
                         (let ((section (plist-get item :section)))
                           (if (member section '(nil "" "chatls")) chatls-settings nil)))
                       (plist-get args :items)))))

    (add-to-list 'eglot-server-programs
                 '((chatls-mode :language-id "chat") . chatls--eglot-contact))))

;;;; lsp-mode

(with-eval-after-load 'lsp-mode
  (add-to-list 'lsp-language-id-configuration '(chatls-mode . "chat"))
  (lsp-register-client
   (make-lsp-client
    :new-connection (lsp-stdio-connection (lambda () chatls-program))
    :activation-fn (lsp-activate-on "chat")
    :initialization-options #'chatls--init-options
    :notification-handlers (let ((h (make-hash-table :test #'equal)))
                             (puthash "chatls/status" (lambda (_ params) (chatls--on-status (gethash "uri" params) (gethash "text" params))) h)
                             h)
    :server-id 'chatls)))

(provide 'chatls)
;;; chatls.el ends here
