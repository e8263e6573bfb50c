;;; conversation-test.el --- Whole conversations in Emacs + eglot with the real server  -*- lexical-binding: t; indent-tabs-mode: nil -*-

;; Run by clients/emacs/test/run.sh after chatls-test.el:
;;   emacs --batch -l conversation-test.el
;; The conversations of clients/nvim/test/conversation.lua: three turns
;; against the script provider and against a local Anthropic wire-format
;; server, the whole buffer compared after each turn with
;; clients/testdata/three-turn/; cancel (answered within 200 ms), a 401
;; (the buffer as it was), retries (the mode line says so); no
;; "[eglot] Edit successful!" after server edits.
;; Env: CHATLS_BIN, CHATLS_WS, CHATLS_EL, CHATLS_LOG, CHATLS_EXPECT.

;;; Code:

(require 'package)
(package-initialize)
(require 'eglot)
(require 'flymake)
(require 'cl-lib)
(load (getenv "CHATLS_EL") nil t)

(defvar conv-passed 0)
(defvar conv-failed 0)
(defconst conv-long 60 "Seconds: generous, for a busy machine.")

(defvar conv-messages nil "Every message shown, newest first.")
(advice-add 'message :around
            (lambda (orig format &rest args)
              (when format (push (apply #'format-message format args) conv-messages))
              (apply orig format args)))

(defun conv-check (name ok &optional detail)
  (if ok (cl-incf conv-passed) (cl-incf conv-failed))
  (princ (format "%s %s%s\n" (if ok "PASS" "FAIL") name
                 (if (or ok (null detail)) "" (format ": %s" detail))))
  ok)

(defun conv-finish ()
  (princ (format "emacs conversation: %d passed, %d failed\n" conv-passed conv-failed))
  (kill-emacs (if (zerop conv-failed) 0 1)))

(defun conv-wait (seconds pred)
  "Process server messages until PRED holds or SECONDS pass.
Batch Emacs never goes idle, so eglot's idle timer that sends didChange
never fires: send pending changes here, as the timer would."
  (let ((end (+ (float-time) seconds)) ok)
    (while (and (not (setq ok (funcall pred))) (< (float-time) end))
      (when (and (eglot-managed-p) eglot--change-idle-timer)
        (cancel-timer eglot--change-idle-timer)
        (setq eglot--change-idle-timer nil)
        (eglot--signal-textDocument/didChange))
      (accept-process-output nil 0.02))
    ok))

(defun conv-read (name)
  (with-temp-buffer
    (insert-file-contents (expand-file-name name (getenv "CHATLS_EXPECT")))
    (buffer-string)))

(defun conv-show (text)
  (concat "\n" (replace-regexp-in-string "\n" "⏎\n" text)))

(defun conv-key (keys)
  (call-interactively (key-binding (kbd keys))))

(setq chatls-program (list (getenv "CHATLS_BIN") "--log-file" (getenv "CHATLS_LOG"))
      eglot-sync-connect 30
      eglot-autoshutdown nil)
(fset 'y-or-n-p (lambda (prompt) (error "Unexpected question: %s" prompt)))

(defun conv-open (name content)
  (let ((file (expand-file-name name (getenv "CHATLS_WS"))))
    (with-temp-file file (insert content))
    (find-file file)
    (unless (eglot-managed-p) (apply #'eglot (eglot--guess-contact)))
    ;; flymake starts its backends from an idle timer, which batch Emacs
    ;; never runs: start them as that timer would.
    (when (bound-and-true-p flymake-mode) (flymake-start))
    (conv-check (concat name ": server attached, status pushed")
                (conv-wait conv-long (lambda () chatls--status)) (chatls-mode-line))))

(defun conv-settle (want status)
  (conv-wait conv-long (lambda () (and (equal (buffer-string) want)
                                       (string-match-p status (or chatls--status ""))))))

(defun conv-conversation (label name prefix)
  (conv-open name (concat prefix (conv-read "start.chat")))
  (let ((turn1 (concat prefix (conv-read "after-1.chat")))
        (turn2 (concat prefix (conv-read "after-2.chat")))
        (turn3 (concat prefix (conv-read "after-3.chat"))))
    (goto-char (point-max))
    (conv-key "C-c C-c")
    (when (conv-check (concat label ": turn 1 — the answer and its pending call, each once")
                      (conv-settle turn1 "waits for approval") (conv-show (buffer-string)))
      (goto-char (point-min))
      (setq conv-messages nil)
      (conv-key "C-c C-a")
      (conv-check (concat label ": C-c C-a outside a call says which call it approves")
                  (member (format "chatls: approving bash toolu_01 (line %d)"
                                  (+ 14 (cl-count ?\n prefix)))
                          conv-messages)
                  conv-messages)
      (when (conv-check (concat label ": turn 2 — the result, sent again, the second answer and call")
                        (conv-settle turn2 "waits for approval") (conv-show (buffer-string)))
        (goto-char (point-min))
        (conv-key "C-c C-n")
        (conv-check (concat label ": C-c C-n moves to the pending call")
                    (and (looking-at-p "```flemma:tool status=pending$") (> (line-number-at-pos) 20))
                    (thing-at-point 'line))
        (setq conv-messages nil)
        (conv-key "C-c C-k")
        (conv-check (concat label ": C-c C-k in the call says nothing about another call")
                    (not (cl-some (lambda (m) (string-match-p "rejecting" m)) conv-messages)) conv-messages)
        (conv-check (concat label ": turn 3 — the rejection, sent again, the final answer")
                    (conv-settle turn3 "write your question under the last @You:") (conv-show (buffer-string)))))
    (set-buffer-modified-p nil)))

(defun conv-main ()
  (setq conv-messages nil)
  (conv-conversation "script" "three-turn.chat" "")
  (let ((noise (cl-remove-if-not (lambda (m) (string-match-p "Edit successful\\|\\[eglot\\] applying" m)) conv-messages)))
    (conv-check "script: no \"[eglot] Edit successful!\" or \"applying N edits\" after server edits"
                (null noise) noise))
  (conv-check "script: the mode line shows the last answer's usage"
              (conv-wait 10 (lambda () (string-match-p (regexp-quote "last answer: scripted · 22.4k in (10.1k cached) · 850 out · $") (chatls-mode-line))))
              (chatls-mode-line))

  (let ((wire "```lua\nflemma.opt.provider = \"wire\"\n```\n"))
    (conv-conversation "anthropic wire" "wire.chat" wire)

    ;; Cancel mid-answer: the server's answer within 200 ms of the key.
    (let ((start (concat wire "@You:\n[slow] Count for me.\n"))
          (marker "<!-- flemma:aborted: Response interrupted by the user. -->"))
      (conv-open "slow.chat" start)
      (conv-key "C-c C-c")
      (conv-check "cancel: the slow answer streams"
                  (conv-wait conv-long (lambda () (string-match-p "word3 " (buffer-string)))) (conv-show (buffer-string)))
      (goto-char (point-min))
      (setq chatls--last-cancel nil)
      (let ((t0 (float-time)))
        (conv-key "C-c C-s")
        (let ((returned (- (float-time) t0)))
          (conv-wait conv-long (lambda () chatls--last-cancel))
          (let ((ms (and chatls--last-cancel (* 1000 (- chatls--last-cancel t0)))))
            (conv-check (format "cancel: the key returns at once (%.0f ms)" (* 1000 returned)) (< returned 0.2))
            (conv-check (format "cancel: answered within 200 ms of the key (%s ms)" (if ms (format "%.0f" ms) "-"))
                        (and ms (< ms 200))))))
      (conv-wait conv-long (lambda () (and (string-match-p (regexp-quote marker) (buffer-string))
                                           (string-suffix-p "@You:\n\n" (buffer-string)))))
      (let* ((got (buffer-string))
             (words (and (string-prefix-p (concat start "\n@Assistant:\n") got)
                         (string-match (concat "\n+" (regexp-quote marker) "\n\n@You:\n\n\\'") got)
                         (string-trim (substring got (length (concat start "\n@Assistant:\n")) (match-beginning 0)))))
             (n (length (split-string (or words "")))))
        (conv-check "cancel: what arrived, once and in order, then the abort marker and @You:"
                    (and words (>= n 3)
                         (equal words (mapconcat (lambda (i) (format "word%d" i)) (number-sequence 1 n) " ")))
                    (conv-show got))
        (conv-check "cancel: the abort marker once"
                    (= 1 (cl-count-if (lambda (l) (equal l marker)) (split-string got "\n"))) (conv-show got)))
      (set-buffer-modified-p nil))

    ;; A 401 leaves the buffer as it was.
    (let ((start (concat wire "@You:\n[401] Hello?\n")))
      (conv-open "refused.chat" start)
      (ignore-errors (conv-key "C-c C-c"))
      (conv-check "401: an error diagnostic with the status"
                  (conv-wait conv-long (lambda () (cl-some (lambda (d) (string-match-p "401" (flymake-diagnostic-text d)))
                                                           (flymake-diagnostics))))
                  (mapcar #'flymake-diagnostic-text (flymake-diagnostics)))
      (conv-check "401: the buffer is as it was (no @Assistant: left)"
                  (conv-wait conv-long (lambda () (equal (buffer-string) start))) (conv-show (buffer-string)))
      (set-buffer-modified-p nil))

    ;; Retries show in the mode line, then the answer arrives once.
    (let ((want (concat wire (replace-regexp-in-string "Run two commands" "[overloaded] Run two commands"
                                                       (conv-read "after-1.chat") t t)))
          retry)
      (conv-open "busy.chat" (concat wire "@You:\n[overloaded] Run two commands for me.\n"))
      (conv-key "C-c C-c")
      (let ((done (conv-wait conv-long (lambda ()
                                         (when (string-match-p "retrying in" (chatls-mode-line))
                                           (setq retry (chatls-mode-line)))
                                         (and (equal (buffer-string) want)
                                              (string-match-p "waits for approval" (chatls-mode-line)))))))
        (conv-check "retry: the mode line shows \"Overloaded; retrying in …\""
                    (and retry (string-match-p "Overloaded; retrying in" retry)) retry)
        (conv-check "retry: the answer arrives once after the retries" done (conv-show (buffer-string)))))))

(condition-case err
    (conv-main)
  (error (conv-check "the test script ran to its end" nil err)))
(conv-finish)

;;; conversation-test.el ends here
