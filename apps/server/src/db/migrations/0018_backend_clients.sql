CREATE TABLE "backend_client_assertions" (
	"backend_client_id" integer NOT NULL,
	"jti" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "backend_client_assertions_backend_client_id_jti_pk" PRIMARY KEY("backend_client_id","jti")
);
--> statement-breakpoint
CREATE TABLE "backend_clients" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "backend_clients_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"team_id" integer NOT NULL,
	"client_id" text NOT NULL,
	"name" text NOT NULL,
	"key_format" text NOT NULL,
	"jwks" jsonb NOT NULL,
	"scopes" text[] NOT NULL,
	"created_by" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_by" integer,
	CONSTRAINT "backend_clients_key_format" CHECK ("backend_clients"."key_format" IN ('jwks', 'pem')),
	CONSTRAINT "backend_clients_revoked_pair" CHECK (("backend_clients"."revoked_at" IS NULL) = ("backend_clients"."revoked_by" IS NULL))
);
--> statement-breakpoint
ALTER TABLE "backend_client_assertions" ADD CONSTRAINT "backend_client_assertions_backend_client_id_backend_clients_id_fk" FOREIGN KEY ("backend_client_id") REFERENCES "public"."backend_clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "backend_clients" ADD CONSTRAINT "backend_clients_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "backend_clients" ADD CONSTRAINT "backend_clients_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "backend_clients" ADD CONSTRAINT "backend_clients_revoked_by_users_id_fk" FOREIGN KEY ("revoked_by") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "backend_client_assertions_expires_at_idx" ON "backend_client_assertions" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "backend_clients_client_id_unique" ON "backend_clients" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "backend_clients_team_id_created_at_idx" ON "backend_clients" USING btree ("team_id","created_at");